#include "explain/names/name_tree.hpp"

#include <cctype>
#include <cstring>

namespace gmexplain::names {

namespace {

constexpr auto npos = std::string::npos;

bool opens(char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
bool closes(char c) { return c == '>' || c == ')' || c == '}' || c == ']'; }

// Just past the bracket group that opens at `at`; npos where it never closes.
std::size_t group_end(const std::string &s, std::size_t at) {
    int depth = 0;
    for (std::size_t i = at; i < s.size(); ++i) {
        if (opens(s[i])) ++depth;
        else if (closes(s[i]) && --depth == 0) return i + 1;
    }
    return npos;
}

bool balanced(const std::string &s) {
    int depth = 0;
    for (char c : s) {
        depth += opens(c) ? 1 : closes(c) ? -1 : 0;
        if (depth < 0) return false;
    }
    return depth == 0;
}

std::string trimmed(const std::string &s) {
    const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == npos ? "" : s.substr(b, e - b + 1);
}

bool starts_with(const std::string &s, const char *head) { return s.compare(0, std::strlen(head), head) == 0; }

bool ends_with(const std::string &s, const std::string &tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The pieces of `s` between its top-level commas: a template's arguments.
std::vector<std::string> split_arguments(const std::string &s) {
    std::vector<std::string> out;
    int depth = 0;
    std::size_t from = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (opens(s[i])) ++depth;
        else if (closes(s[i])) --depth;
        else if (s[i] == ',' && depth == 0) {
            out.push_back(trimmed(s.substr(from, i - from)));
            from = i + 1;
        }
    }
    if (!trimmed(s).empty()) out.push_back(trimmed(s.substr(from)));
    return out;
}

// "128", "2ul", "-1", "true", "(curandOrdering)101": a template argument that is a value.
bool is_value(std::string v) {
    if (starts_with(v, "(")) {
        const auto end = group_end(v, 0);
        if (end == npos) return false;
        v = v.substr(end);
    }
    if (v == "true" || v == "false") return true;
    std::size_t i = !v.empty() && v[0] == '-' ? 1 : 0;
    const std::size_t first_digit = i;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
    if (i == first_digit) return false;
    while (i < v.size() && std::strchr("uUlL", v[i])) ++i;
    return i == v.size();
}

// `s` without what only says how a type is held ("const", "*", "&"); *pointer
// says whether it was a pointer or a reference.
std::string unqualified(std::string s, bool *pointer) {
    for (bool changed = true; changed;) {
        changed = false;
        s = trimmed(s);
        for (const std::string q : {" const", " volatile", " __restrict__", " __restrict"})
            if (ends_with(s, q)) {
                s.resize(s.size() - q.size());
                changed = true;
            }
        if (!s.empty() && (s.back() == '*' || s.back() == '&')) {
            s.pop_back();
            *pointer = changed = true;
        }
    }
    return s;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '~'; }

struct Reader {
    const std::string &s;
    std::size_t i = 0;
    bool done() const { return i >= s.size(); }
    bool at(const char *word) const { return s.compare(i, std::strlen(word), word) == 0; }
    char next() const { return done() ? '\0' : s[i]; }
};

// The id of the part at r.i: a bracketed scope ("{lambda(int)#1}",
// "(anonymous namespace)"), "operator()", or an identifier; "" where none starts.
std::string read_id(Reader &r) {
    const std::size_t from = r.i;
    if (r.next() == '{' || r.next() == '(') r.i = group_end(r.s, r.i);
    else if (r.at("operator()")) r.i += 10;
    else
        while (!r.done() && identifier_char(r.s[r.i])) ++r.i;
    return r.s.substr(from, r.i - from);
}

// One part at r.i, with its template arguments and parameter list; nullopt where none starts.
std::optional<Part> read_part(Reader &r) {
    Part p;
    p.id = read_id(r);
    if (p.id.empty()) return std::nullopt;
    if (r.next() == '<') {
        const auto end = group_end(r.s, r.i);
        for (const auto &a : split_arguments(r.s.substr(r.i + 1, end - r.i - 2))) {
            auto arg = read_name(a);
            if (!arg) return std::nullopt;
            p.args.push_back(*arg);
        }
        p.templated = true;
        r.i = end;
    }
    if (r.next() == '(') {
        r.i = group_end(r.s, r.i);
        p.function = true;
    }
    for (const char *qualifier : {" const", " volatile"})  // of a member function: "operator()() const"
        if (r.at(qualifier)) r.i += std::strlen(qualifier);
    return p;
}

// The parts of the qualified name at r.i ("at::native::reduce_kernel<...>"); empty where none starts.
std::vector<Part> read_parts(Reader &r) {
    std::vector<Part> parts;
    for (;;) {
        auto p = read_part(r);
        if (!p) return {};
        parts.push_back(*p);
        if (!r.at("::")) return parts;
        r.i += 2;
    }
}

}  // namespace

bool is_lambda(const Part &p) { return starts_with(p.id, "{lambda") || starts_with(p.id, "{unnamed"); }

std::optional<Name> read_name(const std::string &text) {
    Name n;
    n.text = trimmed(text);
    if (!balanced(n.text)) return std::nullopt;
    std::string s = n.text;
    if (starts_with(s, "&")) {  // a function's address, as a template argument
        n.address = true;
        s = trimmed(s.substr(1));
        if (starts_with(s, "(") && group_end(s, 0) == s.size()) s = s.substr(1, s.size() - 2);
    }
    s = unqualified(s, &n.pointer);
    if (s.empty() || is_value(s)) return n;
    // Words before the name ("void" of "void f(...)", "unsigned" of
    // "unsigned int") are read as names too: the last one read is the name.
    Reader r{s};
    while (!r.done()) {
        while (r.next() == ' ') ++r.i;
        const std::size_t from = r.i;
        auto parts = read_parts(r);
        if (parts.empty() || r.i == from) break;  // nothing more that reads as a name ("[4]")
        n.parts = std::move(parts);
    }
    return n;
}

}  // namespace gmexplain::names
