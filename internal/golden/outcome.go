package golden

// CodeInvalidTensor is the skip code of an oracle whose implementation
// returned a tensor no .npy can hold (a negative dimension, fewer values
// than its shape): a disagreement, not a skip.
const CodeInvalidTensor = "invalid-tensor"
