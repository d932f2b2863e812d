// Command consumer is a first program against the released Go module: the
// library, the devices, and a saved run read back (no GPU needed).
package main

import (
	"fmt"
	"os"

	"gmlab.invalid/gmlab"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "consumer:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	devices, err := gmlab.DeviceCount()
	if err != nil {
		return err
	}
	fmt.Printf("gmlab %s (ABI %d) from %s, %d device(s)\n", gmlab.Version(), gmlab.ABIVersion(), gmlab.LibraryPath(), devices)
	results, err := readRun(path)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d results\n", path, results)
	return nil
}

func readRun(path string) (int, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return gmlab.RunResultCount(string(text))
}
