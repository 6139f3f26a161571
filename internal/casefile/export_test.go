package casefile

// EngineChanges exports engineChanges to the tests of the registry.
var EngineChanges = (*Case).engineChanges
