// Pass 3 (--lines): the records of the injection library's lines pass
// (inject/sass_pass.hpp) read back, and the source lines of each counted
// kernel added to the document and its text (docs/explain.md, "Pass 3,
// source lines").
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmexplain {

// The text of line `line` of `file`, spaces trimmed; "" where it cannot be
// read (a call site's line; a kernel line in a file still on disk, such as
// the Python source torch.compile's Inductor generated).
std::string source_line(const std::string &file, int line);

// One source line of one kernel: its instructions' SASS metrics, summed over
// the launches the pass saw. Requests are warp-level instructions.
struct LineRecord {
    std::string mangled, path;  // the kernel; the source file as the cubin's line table names it
    unsigned line = 0;
    double instructions = 0;
    double ld_requests = 0, ld_sectors = 0, ld_ideal_sectors = 0;  // global loads
    double st_requests = 0, st_sectors = 0, st_ideal_sectors = 0;  // global stores
    double shared_requests = 0, shared_wavefronts = 0, shared_ideal_wavefronts = 0;
    double local_loads = 0, local_stores = 0, local_sectors = 0;
};

struct LinesRecords {
    std::vector<int> pids;                              // processes that ran the pass
    std::vector<LineRecord> lines;
    std::map<std::string, double> without_line_info;    // kernels whose cubin has no line table: instructions seen
    std::map<std::string, std::uint64_t> launches;      // launches of each chosen kernel in the lines run
    std::string unavailable;                            // why the pass could not run ("" when it ran)
    std::vector<std::string> notes;
};

// One JSON line of a lines-<pid>.jsonl file into `out`.
void add_lines_record(LinesRecords &out, const std::string &line, int pid);
// Every lines-<pid>.jsonl in `folder`.
LinesRecords read_lines(const std::string &folder);

// The chosen kernels (mangled names) that the lines run launched, with line
// information, but collected nothing for. Only the first chosen kernel
// launched in a context is collected (measured on an H100, CUDA 13.0), so
// each of these gets a run of its own.
std::vector<std::string> kernels_without_lines(const LinesRecords &records, const std::vector<std::string> &chosen);
// The folder of the `index`-th kernel's run of its own: <folder>/lines-kernel-<index>.
std::string lines_rerun_folder(const std::string &folder, std::size_t index);
// read_lines of `folder`, with what each kernel's run of its own (the
// folders lines_rerun_folder names) collected for the kernels the first run
// missed; the launch counts stay the first run's.
LinesRecords read_lines_with_reruns(const std::string &folder);

// Adds to each counted kernel of `doc` its "lines" (the lines whose global
// accesses use more sectors than ideal, with shared bank conflicts, or with
// local-memory accesses; worst first, at most `top`) or why it has none
// ("lines_missing"), and passes.lines and the notes.
void add_source_lines(nlohmann::json &doc, const LinesRecords &records, double seconds, std::size_t top = 5);

// The kernel's lines as the text prints them under its findings ("" when none).
std::string source_lines_text(const nlohmann::json &kernel);

}  // namespace gmexplain
