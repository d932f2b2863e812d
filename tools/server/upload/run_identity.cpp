#include "upload/run_identity.hpp"

#include <cstring>

#include "upload/sha256.hpp"

namespace gmserver {
namespace {

// A name with its length in front, so that no two lists of names give the
// same text.
void put_name(std::string &out, const std::string &name) {
    out += std::to_string(name.size());
    out += ':';
    out += name;
}

void put_double(std::string &out, double v) {
    char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    out.append(bytes, sizeof v);
}

}  // namespace

std::string run_identity(const std::string &gpu_key, const std::string &created_at, const std::vector<PointRow> &points,
                         const std::vector<PointRow> &summaries) {
    // The names are written where they change, the numbers as their 8 bytes:
    // a run of 10,000 points hashes about 170 KB.
    std::string text = "gmlab run identity 1\n";
    put_name(text, gpu_key);
    put_name(text, created_at);
    text.reserve(text.size() + points.size() * 2 * sizeof(double) + 4096);
    for (const std::vector<PointRow> *rows : {&points, &summaries}) {
        text += "\nrows";
        const PointRow *last = nullptr;
        for (const PointRow &p : *rows) {
            // Each name where it changes, tagged with which it is.
            if (!last || p.experiment != last->experiment) put_name(text += 'e', p.experiment);
            if (!last || p.series != last->series) put_name(text += 's', p.series);
            if (!last || p.field != last->field) put_name(text += 'f', p.field);
            text += 'v';
            put_double(text, p.x);
            put_double(text, p.value);
            last = &p;
        }
    }
    return sha256_hex(text);
}

}  // namespace gmserver
