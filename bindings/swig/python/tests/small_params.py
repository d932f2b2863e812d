"""Small parameters for a quick run of every experiment (the same sizes as
scripts/gpu-check.sh uses). test_params.py checks that they cover the registry
and resolve without a device; test_gpu_experiments.py runs them."""

SMALL = {
    "stream": {"array_bytes": "8MiB"},
    "offset_copy": {"elements": 262144, "offsets": "0,1,8"},
    "stride_copy": {"elements": 65536, "strides": "1..4", "word_sizes": [4]},
    "l2_persist": {"streaming_bytes": "32MiB", "sweep_points": 3},
    "bank_conflicts": {"iterations": 16, "blocks_per_sm": 1},
    "matmul_ab": {"m": 256, "n": 96},
    "matmul_aat": {"m": 256},
    "transpose": {"rows": 300, "cols": 260},
    "shared_alloc": {"elements": 65536},
    "async_copy": {"copy_counts": "1,4,7"},
    "constant_broadcast": {"k": "1,7,32", "iterations": 64},
    "stencil": {"elements": 100003},
    "texture": {"width": 300, "height": 200},
    "transfer": {"min_size": 1000, "max_size": "1MiB"},
    "transfer_batching": {"counts": "1,16", "chunk_sizes": 4096},
    "zero_copy": {"bytes": "1MiB"},
    "copy_overlap": {"bytes": "4MiB", "streams": "1,4", "iterations": 16},
    "peer": {"bytes": "1MiB", "latency_copies": 4},
    "latency": {"min_bytes": "4KiB", "max_bytes": "1MiB", "points_per_octave": 1, "hops": 64},
    "memory_spaces": {"hops": 64},
    "local_memory": {"threads": 4096, "rounds": 2},
    "register_pressure": {"threads": 4096, "iterations": 2},
    "alignment": {"records": 10007, "offsets": "1,2,4,8,12"},
    "pitch_2d": {"widths": "1,33,1025,32769", "height": 9},
    "l2_partitions": {"lines": 32, "sm_step": 32, "region_bytes": "8MiB", "sweep_points": 1, "sweep_hops": 64},
    "cache_hints": {"reused_over_l2": 0.05, "stream_over_l2": 0.2, "strided_bytes": "2MiB", "strides": "64,256"},
    "carveout": {"carveouts": "0,100", "working_sets_kib": "16,48", "reads_per_sm": "1MiB"},
}
