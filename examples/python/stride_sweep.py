"""A stride sweep on GPU 0, notebook style: run stride_copy, look at the table
the guide predicts (bandwidth falls as 1/stride while the 32-byte sectors per
warp request grow), put it in a pandas frame if pandas is there, and plot it
with matplotlib if that is there.

    python3 stride_sweep.py [--plot stride_sweep.png]

Exit status 3 where there is no CUDA device (as the gmlab command), 1 on any
other error.
"""

import sys

import gmlab


def main(argv):
    plot_file = argv[argv.index("--plot") + 1] if "--plot" in argv[:-1] else None
    try:
        with gmlab.Context() as ctx, ctx.run("stride_copy", elements=1000000, strides="1..8", word_sizes=[4],
                                             variants=["guide"]) as result:
            series = result.series[0]
            print(series.name)
            print("%6s  %9s  %15s" % ("stride", "GB/s", "sectors/request"))
            for p in series.points:
                print("%6.0f  %9.1f  %15.0f" % (p.x, p["bandwidth_gbs"], p["predicted.sectors_per_request"]))
            frame = None
            try:
                frame = result.to_pandas()
            except ImportError:
                pass
            if frame is not None:
                print("as a pandas frame: %d rows, columns %s, ..." % (len(frame), ", ".join(frame.columns[:6])))
            if plot_file:
                plot(series, plot_file)
    except gmlab.NoDeviceError as e:
        print("gmlab: %s" % e, file=sys.stderr)
        return 3
    except gmlab.Error as e:
        print("gmlab: %s" % e, file=sys.stderr)
        return 1
    return 0


def plot(series, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no plot)", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(series.x, series.y, "o-", label="measured")
    first = series.y[0]
    ax.plot(series.x, [first * e for e in series.values("predicted.efficiency")], "--", label="guide's model")
    ax.set_xlabel("%s (%s)" % (series.x_name, series.x_unit))
    ax.set_ylabel("%s (%s)" % (series.y_name, series.y_unit))
    ax.set_title(series.name)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    print("plot: %s" % path, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
