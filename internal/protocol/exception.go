package protocol

// exceptionBases maps an exception class to its direct base classes, for
// the classes NumPy's indexing raises and their bases. Sources: Python
// 3 documentation, "Built-in Exceptions", section "Exception hierarchy";
// NumPy 1.24 reference, numpy.AxisError ("This raises a ValueError and
// an IndexError": class AxisError(ValueError, IndexError)).
var exceptionBases = map[string][]string{
	"numpy.AxisError":     {"ValueError", "IndexError"},
	"IndexError":          {"LookupError"},
	"KeyError":            {"LookupError"},
	"LookupError":         {"Exception"},
	"ValueError":          {"Exception"},
	"TypeError":           {"Exception"},
	"OverflowError":       {"ArithmeticError"},
	"ZeroDivisionError":   {"ArithmeticError"},
	"ArithmeticError":     {"Exception"},
	"SyntaxError":         {"Exception"},
	"RuntimeError":        {"Exception"},
	"NotImplementedError": {"RuntimeError"},
	"MemoryError":         {"Exception"},
	"Exception":           {"BaseException"},
}

// SubclassOf reports whether the exception class sub is class or one of
// its subclasses, as far as the table of classes NumPy's indexing raises
// knows them: a class it does not list is a subclass of itself only.
func SubclassOf(sub, class string) bool {
	if sub == class {
		return true
	}
	for _, base := range exceptionBases[sub] {
		if SubclassOf(base, class) {
			return true
		}
	}
	return false
}
