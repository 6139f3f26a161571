package engine

// PoisonNewBytes turns on the poisoning of new buffers (see
// poisonNewBytes) for the tests of package engine_test.
var PoisonNewBytes = &poisonNewBytes
