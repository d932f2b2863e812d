package gmlab

// Status codes, numbered as gmlab.h numbers gm_status. The values never change.
const (
	StatusOK                 = 0
	StatusInvalidArgument    = -1
	StatusNoDevice           = -2
	StatusNotSupported       = -3
	StatusOutOfMemory        = -4
	StatusCUDA               = -5
	StatusVerificationFailed = -6
	StatusUnknownExperiment  = -7
	StatusInternal           = -8
)

// Error is the error of every failing call: the library's status code and the
// message that names the argument and its allowed range.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string {
	return "gmlab: " + e.Message
}

func invalidArgument(message string) *Error {
	return &Error{Status: StatusInvalidArgument, Message: message}
}
