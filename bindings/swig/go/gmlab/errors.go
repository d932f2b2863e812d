package gmlab

import "fmt"

// Status is a gmlab status code, numbered as gmlab.h numbers gm_status. The
// values never change.
type Status int

// The status codes of gmlab.h.
const (
	StatusOK                 Status = 0
	StatusInvalidArgument    Status = -1
	StatusNoDevice           Status = -2
	StatusNotSupported       Status = -3
	StatusOutOfMemory        Status = -4
	StatusCUDA               Status = -5
	StatusVerificationFailed Status = -6
	StatusUnknownExperiment  Status = -7
	StatusInternal           Status = -8
)

var statusNames = map[Status]string{
	StatusOK:                 "StatusOK",
	StatusInvalidArgument:    "StatusInvalidArgument",
	StatusNoDevice:           "StatusNoDevice",
	StatusNotSupported:       "StatusNotSupported",
	StatusOutOfMemory:        "StatusOutOfMemory",
	StatusCUDA:               "StatusCUDA",
	StatusVerificationFailed: "StatusVerificationFailed",
	StatusUnknownExperiment:  "StatusUnknownExperiment",
	StatusInternal:           "StatusInternal",
}

// String is the constant's name ("StatusNoDevice"), or "Status(-9)" for a
// code newer than this package; StatusString gives the library's text.
func (s Status) String() string {
	if name, ok := statusNames[s]; ok {
		return name
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Error is the error of every failing call: the library's status code and the
// message that names the argument and its allowed range.
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string {
	return "gmlab: " + e.Message
}

func invalidArgument(message string) *Error {
	return &Error{Status: StatusInvalidArgument, Message: message}
}
