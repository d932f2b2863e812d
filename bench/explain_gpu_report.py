#!/usr/bin/env python3
"""What scripts/explain-gpu.sh measured, as the figures docs/explain.md quotes:
the confusion matrix of the example programs (each planted pattern against
the rules explain named, the fixed twins below), explain's time over the
program's own and over Nsight Compute's on the same kernels, the outside
programs' findings and the exit codes of the bad inputs.

    bench/explain_gpu_report.py OUT          the report
    bench/explain_gpu_report.py --ncu-filter DOC.json   ncu's -k regex for the kernels explain counted
    bench/explain_gpu_report.py --ncu-count DOC.json    how many kernels that is
    bench/explain_gpu_report.py --gains-json OUT        the pairs' gains as tests/explain/fixtures/gains.json
"""
import json
import os
import re
import sys

EXPECTED = {
    'strided_access': 'uncoalesced_global',
    'misaligned_access': 'misaligned_global',
    'bank_conflicts': 'shared_bank_conflicts',
    'local_memory': 'local_memory_spills',
    'low_bandwidth': 'dram_below_attainable',
    'pageable_transfers': 'pageable_transfers',
    'small_transfers': 'small_transfers',
    'serial_copies': 'copies_not_overlapped',
    'managed_faults': 'unified_memory_faults',
    'managed_loop': 'unified_memory_faults',
    'malloc_in_loop': 'allocation_in_loop',
    'l2_eviction': 'l2_evicted_reuse',
    'graph_bank_conflicts': 'shared_bank_conflicts',
    'constant_divergent': 'constant_serialized',
    'mapped_reread': 'mapped_memory_reread',
    'unpitched_rows': 'unpitched_rows',
    'occupancy_limited': 'occupancy_limited',
    'shared_through_registers': 'shared_through_registers',
    'staged_peer': 'peer_staged_through_host',
}
OUTSIDE = ['torch_training_step', 'cupy_rawkernel', 'triton_softmax', 'torch_training_step-p2']


def counted_kernels(doc):
    return [k for k in doc['kernels'] if k.get('counted')]


def function_name(demangled):
    """ncu's 'function' base name: the demangled name without parameters,
    return type, template arguments or namespaces."""
    name = demangled.split('(')[0]
    depth, out = 0, ''
    for ch in name:
        if ch == '<':
            depth += 1
        elif ch == '>':
            depth -= 1
        elif depth == 0:
            out += ch
    return out.split()[-1].split('::')[-1] if out.split() else out


def named_rules(doc):
    rules = [f['rule'] for f in doc['run']['findings']]
    for k in doc['kernels']:
        rules += [f['rule'] for f in k.get('findings', [])]
    return rules


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def timings(out):
    rows = {}
    path = os.path.join(out, 'timings.tsv')
    if os.path.exists(path):
        for line in open(path):
            name, kind, rc, plain, tool = line.rstrip('\n').split('\t')
            rows[(name, kind)] = (int(rc), float(plain), float(tool))
    return rows


def needs_more_gpus(out, program):
    """The program's own line saying it cannot run here (staged_peer on one GPU), or None."""
    try:
        text = open(os.path.join(out, 'regions', program + '-planted.txt')).read()
    except OSError:
        return None
    m = re.search(r'not applicable: (.*)', text)
    return m.group(1).strip() if m else None


def confusion(out, suffix=''):
    rules = sorted(set(EXPECTED.values()))
    print('\nConfusion matrix%s: rows are programs, columns the rules explain named (X) or not (.)' % (' (--passes 2)' if suffix else ''))
    print('%-28s %s' % ('', ' '.join('%2d' % i for i in range(len(rules)))))
    tp = fn = fp_fixed = extra = 0
    not_applicable = []
    for program, want in EXPECTED.items():
        if needs_more_gpus(out, program):
            not_applicable.append(program)
            print('%-28s (not applicable here: %s)' % (program, needs_more_gpus(out, program)))
            continue
        for variant in ('planted', 'fixed'):
            doc = load(os.path.join(out, 'json', '%s-%s%s.json' % (program, variant, suffix)))
            if doc is None:
                print('%-28s (no document)' % ('%s-%s' % (program, variant)))
                if variant == 'planted':
                    fn += 1
                continue
            named = set(named_rules(doc))
            cells = ' '.join(' X' if r in named else ' .' for r in rules)
            print('%-28s %s' % ('%s-%s' % (program, variant), cells))
            if variant == 'planted':
                tp += want in named
                fn += want not in named
                extra += len(named - {want})
            else:
                fp_fixed += len(named)
    for i, r in enumerate(rules):
        print('  %2d %s' % (i, r))
    print('planted patterns named: %d of %d; missed: %d; other rules named on planted programs: %d; '
          'rules named on fixed twins: %d; not applicable on this machine: %s'
          % (tp, len(EXPECTED) - len(not_applicable), fn, extra, fp_fixed, ', '.join(not_applicable) or 'none'))


def costs(out):
    t = timings(out)
    print('\nCost: explain over the program alone, and over ncu on the same kernels')
    for (name, kind), (rc, plain, tool) in sorted(t.items()):
        if kind != 'explain':
            continue
        line = '%-28s exit %3d  program %6.2f s  explain %6.2f s  (%.1fx the program)' % (name, rc, plain, tool, tool / plain if plain else 0)
        if (name, 'ncu') in t:
            ncu = t[(name, 'ncu')][2]
            line += '  ncu %6.2f s  explain/ncu %.2f' % (ncu, tool / ncu if ncu else 0)
        print(line)


def outside(out):
    print('\nOutside programs')
    for name in OUTSIDE:
        doc = load(os.path.join(out, 'json', name + '.json'))
        if doc is None:
            print('%s: no document' % name)
            continue
        print('%s: %d kernels, %d finding(s)' % (name, doc['kernels_total'], doc['summary']['findings']))
        for k in counted_kernels(doc):
            shown = k.get('short_name') or k['name'][:90]  # documents before 1.1 have no short name
            for f in k['findings']:
                print('  #%d %s: %s: %s [%s; %s]' % (k['rank'], shown, f['rule'], f['text'], f['cost'].get('text', 'no cost'), f.get('launches', '')))
            if not k['findings']:
                print('  #%d %s: no finding' % (k['rank'], shown))
        for f in doc['run']['findings']:
            print('  run: %s: %s' % (f['rule'], f['text']))
        for n in doc['notes']:
            print('  note: %s' % n)


def traced_vs_counted(out):
    """Each example's unified-memory figures and every kernel whose traced
    launches took over 3x its counted one, with the cause explain gave: what
    the managed_loop pair is checked by on a GPU."""
    print('\nUnified memory and slow traced launches')
    for program in EXPECTED:
        for variant in ('planted', 'fixed', 'planted-p2', 'fixed-p2'):
            doc = load(os.path.join(out, 'json', '%s-%s.json' % (program, variant)))
            if doc is None:
                continue
            rf = doc['run']['figures']
            slow = [k for k in doc['kernels'] if k.get('traced_vs_counted', {}).get('slow_launches')]
            if not rf.get('um_gpu_page_faults') and not rf.get('um_bytes_htod') and not slow:
                continue
            print('%-28s GPU faults %d (%d groups), HtoD %.3g MiB (on demand %.3g, beside kernels %.3g), '
                  'DtoH %.3g MiB, CPU faults %d, thrashing %d, throttling %d, remote maps %d, fault kernel ms %.3g, '
                  'excess ms %.3g, without a record %.3g ms'
                  % ('%s-%s' % (program, variant), rf.get('um_gpu_page_faults', 0), rf.get('um_gpu_fault_groups', 0),
                     rf.get('um_bytes_htod', 0) / 2**20, rf.get('um_bytes_htod_on_demand', 0) / 2**20,
                     rf.get('um_bytes_htod_in_kernels', 0) / 2**20, rf.get('um_bytes_dtoh', 0) / 2**20,
                     rf.get('um_cpu_page_faults', 0), rf.get('um_thrashing', 0), rf.get('um_throttling', 0),
                     rf.get('um_remote_map', 0), rf.get('fault_kernel_ms', 0), rf.get('fault_excess_ms', 0),
                     rf.get('unrecorded_wait_ms', 0)))
            for k in slow:
                t = k['traced_vs_counted']
                print('  #%d %s: %s; %s' % (k['rank'], k['name'][:60], t['text'], t['cause_text']))


def region_ms(out, name):
    """The median of the program's timed regions ("region_ms: X" lines), or None."""
    try:
        text = open(os.path.join(out, 'regions', name + '.txt')).read()
    except OSError:
        return None
    values = sorted(float(v) for v in re.findall(r'^region_ms: ([0-9.]+)$', text, re.M))
    if not values:
        return None
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def region_spread(out, name):
    """The range (max - min) of the program's timed regions, or None."""
    try:
        text = open(os.path.join(out, 'regions', name + '.txt')).read()
    except OSError:
        return None
    values = [float(v) for v in re.findall(r'^region_ms: ([0-9.]+)$', text, re.M)]
    return max(values) - min(values) if values else None


def held_text(estimate, realized, band, spread):
    """'yes' where the estimate is within its band of the realized gain;
    'noise' where it is not but the realized gain is smaller than the runs'
    own spread (the pair cannot tell such an estimate right from wrong);
    else 'NO'."""
    if estimate is not None and realized > 0 and 1 / band <= estimate / realized <= band:
        return 'yes'
    if spread is not None and abs(realized) < spread:
        return 'noise'
    return 'NO'


def ncu_speedup(out, program):
    """Nsight Compute's largest "Est. Speedup" on the planted program's kernels
    (percent of the kernel's time) and the rule's first words, or None."""
    try:
        text = open(os.path.join(out, 'ncu', program + '-planted.txt')).read()
    except OSError:
        return None
    best = None
    for m in re.finditer(r'Est\. (?:Local |Global )?Speedup: ([0-9.]+)%\s*\n?\s*(.{0,70})', text):
        pct = float(m.group(1))
        if best is None or pct > best[0]:
            best = (pct, ' '.join(m.group(2).split()))
    return best


def finding_gain(doc, rule):
    """The estimated gain of RULE in a document (ms; the largest where named
    more than once), whether a cost was found, the kernels' traced time and
    the band the gain states it holds to (1.5 where it states none)."""
    gains, kernel_ms, band = [], 0.0, 1.5
    named = [(f, None) for f in doc['run']['findings']] + [(f, k) for k in doc['kernels'] for f in k.get('findings', [])]
    for f, k in named:
        if f['rule'] != rule:
            continue
        gains.append(f.get('gain_ms'))
        if k is not None:
            kernel_ms += k.get('total_ms', 0) or 0
        if isinstance(f.get('gain_band'), dict):
            band = f['gain_band']['factor']
    known = [g for g in gains if g is not None]
    return (max(known) if known else None), bool(gains), kernel_ms, band


def gains(out):
    """Each pair's estimated gain beside the gain its fix realised (medians of
    the programs' timed regions), and Nsight Compute's estimate on the same
    kernel where it printed one."""
    print('\nEstimated against realized gain (ms; realized = median planted region - median fixed region)')
    print('(spread: the larger range of either program\'s runs; held "noise": outside the band, but the realized gain is within that spread)')
    print('%-22s %-24s %9s %9s %9s %7s %7s %5s %5s  %s' % ('program', 'rule', 'estimate', 'planted', 'fixed', 'spread', 'est/real', 'band', 'held', 'ncu'))
    for program, rule in EXPECTED.items():
        doc = load(os.path.join(out, 'json', '%s-planted.json' % program))
        planted, fixed = region_ms(out, program + '-planted'), region_ms(out, program + '-fixed')
        if doc is None or planted is None or fixed is None:
            print('%-22s %-24s (not measured)' % (program, rule))
            continue
        estimate, named, kernel_ms, band = finding_gain(doc, rule)
        realized = planted - fixed
        ratio = '%7.2f' % (estimate / realized) if estimate is not None and realized > 0 else '      -'
        spreads = [x for x in (region_spread(out, program + '-planted'), region_spread(out, program + '-fixed')) if x is not None]
        spread = max(spreads) if spreads else None
        held = held_text(estimate, realized, band, spread)
        ncu = ncu_speedup(out, program)
        ncu_text = '%.0f %% of %.3g ms = %.3g ms (%s)' % (ncu[0], kernel_ms, ncu[0] / 100 * kernel_ms, ncu[1]) if ncu and kernel_ms else ''
        print('%-22s %-24s %9s %9.3f %9.3f %7.3f %s %5.1f %5s  %s' % (
            program, rule, '%.3f' % estimate if estimate is not None else ('no cost' if named else 'not named'),
            planted, fixed, spread if spread is not None else float('nan'), ratio, band, held, ncu_text))


def gains_json(out):
    """The measured pairs as tests/explain/fixtures/gains.json keeps them: per
    program its rule, the medians of the planted and fixed regions, the
    realized gain and the estimate explain printed then (the test explains
    the planted records again and holds the new estimate to the realized gain)."""
    pairs = {}
    for program, rule in EXPECTED.items():
        doc = load(os.path.join(out, 'json', '%s-planted.json' % program))
        planted, fixed = region_ms(out, program + '-planted'), region_ms(out, program + '-fixed')
        if doc is None or planted is None or fixed is None or needs_more_gpus(out, program):
            continue
        estimate, _, _, _ = finding_gain(doc, rule)
        pairs[program] = {'rule': rule, 'planted_ms': round(planted, 4), 'fixed_ms': round(fixed, 4),
                          'realized_ms': round(planted - fixed, 4),
                          'estimate_ms': None if estimate is None else round(estimate, 4)}
    gpu = ''
    try:
        gpu = open(os.path.join(out, 'gpu.txt')).read().strip()
    except OSError:
        pass
    print(json.dumps({'gpu': gpu, 'pairs': pairs}, indent=1, sort_keys=True))


def bad_inputs(out):
    print('\nBad inputs and robustness (exit codes)')
    for (name, kind), (rc, _, _) in sorted(timings(out).items()):
        if kind == 'bad':
            print('  %-16s %d' % (name, rc))


def main():
    if len(sys.argv) == 3 and sys.argv[1] in ('--ncu-filter', '--ncu-count'):
        doc = load(sys.argv[2])
        if not doc or not counted_kernels(doc):
            sys.exit(1)
        names = sorted(set(function_name(k['name']) for k in counted_kernels(doc)))
        if sys.argv[1] == '--ncu-filter':
            print('(' + '|'.join(re.escape(n) for n in names) + ')')
        else:
            print(len(counted_kernels(doc)))
        return
    if len(sys.argv) == 3 and sys.argv[1] == '--gains-json':
        gains_json(sys.argv[2])
        return
    out = sys.argv[1]
    confusion(out)
    confusion(out, '-p2')
    costs(out)
    outside(out)
    traced_vs_counted(out)
    gains(out)
    bad_inputs(out)


if __name__ == '__main__':
    main()
