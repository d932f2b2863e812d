// Command stridecopy runs gmlab's stride_copy experiment on GPU 0 with small
// parameters and prints, for each stride, the bandwidth measured by the guide's
// kernel beside the 32-byte sectors per warp request that the guide predicts.
//
// Exit status: 0 on success, 3 where there is no CUDA device, 1 on any other error.
package main

import (
	"errors"
	"fmt"
	"os"

	"gmlab.invalid/gmlab"
)

const params = `{"elements": 1048576, "strides": "1..8", "word_sizes": [4], "variants": ["guide"]}`

func main() {
	os.Exit(run())
}

func run() int {
	ctx, err := gmlab.Open(0)
	if err != nil {
		return fail(err)
	}
	defer ctx.Close()

	result, err := ctx.Run("stride_copy", params)
	if err != nil {
		return fail(err)
	}
	defer result.Close()
	if err := printTable(result); err != nil {
		return fail(err)
	}
	return 0
}

// printTable prints the first series: one row per stride.
func printTable(result *gmlab.Result) error {
	name, err := result.SeriesName(0)
	if err != nil {
		return err
	}
	points, err := result.PointCount(0)
	if err != nil {
		return err
	}
	fmt.Printf("stride_copy, %s\n%6s %10s %18s\n", name, "stride", "GB/s", "sectors/request")
	for p := 0; p < points; p++ {
		var row [3]float64
		for i, field := range []string{"x", "bandwidth_gbs", "predicted.sectors_per_request"} {
			if row[i], err = result.PointValue(0, p, field); err != nil {
				return err
			}
		}
		fmt.Printf("%6.0f %10.1f %18.0f\n", row[0], row[1], row[2])
	}
	return nil
}

func fail(err error) int {
	fmt.Fprintln(os.Stderr, "stridecopy:", err)
	var gmErr *gmlab.Error
	if errors.As(err, &gmErr) && gmErr.Status == gmlab.StatusNoDevice {
		return 3
	}
	return 1
}
