package engine

// PoisonNewBytes turns on the poisoning of new buffers (see
// poisonNewBytes) for the tests of package engine_test.
var PoisonNewBytes = &poisonNewBytes

// OwnedBuffers returns how many buffers the engine has handed out and
// still tracks for Release.
func OwnedBuffers() int {
	buffers.Lock()
	defer buffers.Unlock()
	return len(buffers.owned)
}
