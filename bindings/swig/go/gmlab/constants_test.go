package gmlab

import (
	"testing"

	"gmlab.invalid/gmlab/internal/swiggmlab"
)

// The exported constants are Go constants, so that they can be switched on;
// these tests hold them to the values the wrapper reads from gmlab.h.

func TestStatusConstantsMatchTheLibrary(t *testing.T) {
	pairs := []struct {
		name string
		ours Status
		lib  int
	}{
		{"OK", StatusOK, swiggmlab.StatusOK},
		{"InvalidArgument", StatusInvalidArgument, swiggmlab.StatusINVALID_ARGUMENT},
		{"NoDevice", StatusNoDevice, swiggmlab.StatusNO_DEVICE},
		{"NotSupported", StatusNotSupported, swiggmlab.StatusNOT_SUPPORTED},
		{"OutOfMemory", StatusOutOfMemory, swiggmlab.StatusOUT_OF_MEMORY},
		{"CUDA", StatusCUDA, swiggmlab.StatusCUDA},
		{"VerificationFailed", StatusVerificationFailed, swiggmlab.StatusVERIFICATION_FAILED},
		{"UnknownExperiment", StatusUnknownExperiment, swiggmlab.StatusUNKNOWN_EXPERIMENT},
		{"Internal", StatusInternal, swiggmlab.StatusINTERNAL},
	}
	for _, p := range pairs {
		if int(p.ours) != p.lib {
			t.Errorf("Status%s is %d, the library says %d", p.name, p.ours, p.lib)
		}
		if got := p.ours.String(); got != "Status"+p.name {
			t.Errorf("Status%s.String() = %q", p.name, got)
		}
	}
	if got := Status(-99).String(); got != "Status(-99)" {
		t.Errorf("Status(-99).String() = %q", got)
	}
	if got := StatusString(StatusNoDevice); got != "no CUDA device" {
		t.Errorf("StatusString(StatusNoDevice) = %q", got)
	}
	if got := StatusString(StatusInvalidArgument); got != "invalid argument" {
		t.Errorf("StatusString(StatusInvalidArgument) = %q", got)
	}
}

func TestVariantConstantsMatchTheLibrary(t *testing.T) {
	pairs := []struct {
		name      string
		ours, lib int
	}{
		{"TransposeNaive", int(TransposeNaive), swiggmlab.TransposeNAIVE},
		{"TransposeShared", int(TransposeShared), swiggmlab.TransposeSHARED},
		{"TransposeSharedPadded", int(TransposeSharedPadded), swiggmlab.TransposeSHARED_PADDED},
		{"TransposeWide", int(TransposeWide), swiggmlab.TransposeWIDE},
		{"TransposeAuto", int(TransposeAuto), swiggmlab.TransposeAUTO},
		{"MatmulSimple", int(MatmulSimple), swiggmlab.MatmulSIMPLE},
		{"MatmulCoalescedA", int(MatmulCoalescedA), swiggmlab.MatmulCOALESCED_A},
		{"MatmulSharedAB", int(MatmulSharedAB), swiggmlab.MatmulSHARED_AB},
		{"AccessNormal", int(AccessNormal), swiggmlab.AccessPropertyNORMAL},
		{"AccessStreaming", int(AccessStreaming), swiggmlab.AccessPropertySTREAMING},
		{"AccessPersisting", int(AccessPersisting), swiggmlab.AccessPropertyPERSISTING},
	}
	for _, p := range pairs {
		if p.ours != p.lib {
			t.Errorf("%s is %d, the library says %d", p.name, p.ours, p.lib)
		}
	}
}
