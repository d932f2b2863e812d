package gmlab

import (
	"errors"
	"testing"
)

func TestErrorCarriesStatusAndMessage(t *testing.T) {
	_, err := ResolveParams("stride_copy", `{"strides": [0]}`)
	var gmErr *Error
	if !errors.As(err, &gmErr) {
		t.Fatalf("want a *gmlab.Error, got %v (%T)", err, err)
	}
	if gmErr.Status != StatusInvalidArgument {
		t.Errorf("status %d, want %d", gmErr.Status, StatusInvalidArgument)
	}
	if want := "gmlab: " + gmErr.Message; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestMessagesWithColonsSurviveThePanic(t *testing.T) {
	// The unknown-experiment message holds colons and semicolons of its own.
	_, err := Describe("nope")
	requireError(t, err, StatusUnknownExperiment, "unknown experiment 'nope'; known: stream, read_write, offset_copy, stride_copy")
}

func TestPanicsThatAreNotLibraryErrorsGoOn(t *testing.T) {
	defer func() {
		if recovered := recover(); recovered != "not a library error" {
			t.Fatalf("want the original panic to go on, recovered %v", recovered)
		}
	}()
	_, _ = call(nil, func() int { panic("not a library error") })
	t.Fatal("call returned instead of panicking")
}

func TestErrorFromPanicNeedsTheWholePrefix(t *testing.T) {
	for _, text := range []string{"gmlab-status", "gmlab-status:x:message", "gmlab-status:-1", "other:-1:message"} {
		if e, ok := errorFromPanic(text); ok {
			t.Errorf("errorFromPanic(%q) = %v, want no library error", text, e)
		}
	}
	e, ok := errorFromPanic("gmlab-status:-7:a: b")
	if !ok || e.Status != -7 || e.Message != "a: b" {
		t.Errorf("errorFromPanic: got %+v, %v", e, ok)
	}
}
