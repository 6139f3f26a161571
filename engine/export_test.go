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

// AdvancedSteps returns the number of steps the walks over index arrays
// of advanced getitem have taken so far: index values read and read
// positions moved, a measure of their work that does not depend on the
// machine's speed.
func AdvancedSteps() int64 { return advSteps.Load() }
