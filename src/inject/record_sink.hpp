// Where the injection library writes what it saw: one JSON object per line in
// $GMLAB_EXPLAIN_OUT/<pass>-<pid>.jsonl, each line flushed as written so that
// a program that crashes keeps every record delivered before the crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gmexplain {

// A JSON object built field by field (keys and strings escaped).
class Line {
public:
    Line &field(const char *key, const std::string &value);
    Line &field(const char *key, const char *value) { return field(key, std::string(value ? value : "")); }
    Line &field(const char *key, std::uint64_t value);
    Line &field(const char *key, std::int64_t value);
    Line &field(const char *key, int value) { return field(key, static_cast<std::int64_t>(value)); }
    Line &field(const char *key, unsigned value) { return field(key, static_cast<std::uint64_t>(value)); }
    Line &field(const char *key, double value);
    Line &raw(const char *key, const std::string &json);  // value already JSON
    std::string text() const { return "{" + body_ + "}"; }

private:
    void key(const char *k);
    std::string body_;
};

std::string json_string(const std::string &s);

// Opens the file for this process (a forked child opens its own on its first write).
void sink_open(const std::string &dir, const std::string &pass);
void sink_write(const Line &line);
void sink_flush();
// Closes the file (an in-process session's end: the next one opens its own folder).
void sink_close();

// For a fatal signal's handler, which may do only async-signal-safe work: the
// record {"type":"signal","signal":N} written with write(2) to this process's
// file, without the sink's lock or stdio (the crash may have come while either
// was held). Nothing is flushed from CUPTI there: the trace asks CUPTI to
// deliver its buffers periodically instead, which bounds what a crash loses
// (docs/explain.md, "Robustness").
void sink_write_signal(int sig) noexcept;
// The crashing thread's stack, one frame a line as glibc's
// backtrace_symbols_fd writes it, into <folder>/<pass>-<pid>.stack: where a
// program crashed under explain (in itself, its libraries, CUPTI or this
// library) is what decides what to do about it. backtrace() loads libgcc's
// unwinder on its first call, which a handler must not do:
// sink_prepare_stack() makes that call at start-up.
void sink_prepare_stack() noexcept;
void sink_write_stack() noexcept;
// That record's text with its newline, into buf; its length (0 where buf is
// too small). Pure and async-signal-safe.
std::size_t signal_record(char *buf, std::size_t size, int sig) noexcept;

}  // namespace gmexplain
