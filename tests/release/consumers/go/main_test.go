package main

import (
	"os"
	"testing"

	"gmlab.invalid/gmlab"
)

func TestReadsTheCommittedRun(t *testing.T) {
	n, err := readRun(os.Getenv("GMLAB_RESULTS"))
	if err != nil || n == 0 {
		t.Fatalf("readRun: %d results, %v", n, err)
	}
	text, _ := os.ReadFile(os.Getenv("GMLAB_RESULTS"))
	r, err := gmlab.ResultFromRunJSON(string(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if name, err := r.Experiment(); err != nil || name == "" {
		t.Fatalf("Experiment: %q, %v", name, err)
	}
}

func TestDeviceCountWithoutAGPU(t *testing.T) {
	n, err := gmlab.DeviceCount()
	if err != nil {
		t.Fatal(err)
	}
	if _, statErr := os.Stat("/dev/nvidiactl"); statErr != nil && n != 0 {
		t.Fatalf("DeviceCount: %d without a GPU", n)
	}
}
