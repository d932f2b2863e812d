#include "explain/expression.hpp"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace gmexplain {

namespace {

using Value = std::optional<double>;

// A recursive-descent parser that evaluates as it parses.
class Parser {
public:
    Parser(const std::string &text, const Lookup &lookup) : s_(text), lookup_(lookup) {}

    Value parse() {
        Value v = disjunction();
        skip();
        if (pos_ != s_.size()) fail("unexpected '" + s_.substr(pos_, 1) + "'");
        return v;
    }

    std::set<std::string> names;

private:
    const std::string &s_;
    Lookup lookup_;
    std::size_t pos_ = 0;

    [[noreturn]] void fail(const std::string &what) const {
        throw std::invalid_argument("expression \"" + s_ + "\", at " + std::to_string(pos_) + ": " + what);
    }
    void skip() {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    bool word(const char *w) {
        skip();
        const std::string k(w);
        if (s_.compare(pos_, k.size(), k) != 0) return false;
        const std::size_t end = pos_ + k.size();
        if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) return false;
        pos_ = end;
        return true;
    }
    bool symbol(const char *sym) {
        skip();
        const std::string k(sym);
        if (s_.compare(pos_, k.size(), k) != 0) return false;
        pos_ += k.size();
        return true;
    }

    static Value truth(bool b) { return b ? 1.0 : 0.0; }

    // `and` and `or` treat unknown as unknown unless the known side decides.
    Value disjunction() {
        Value v = conjunction();
        while (word("or")) {
            Value r = conjunction();
            if ((v && *v != 0) || (r && *r != 0)) v = 1.0;
            else if (!v || !r) v = std::nullopt;
            else v = 0.0;
        }
        return v;
    }
    Value conjunction() {
        Value v = negation();
        while (word("and")) {
            Value r = negation();
            if ((v && *v == 0) || (r && *r == 0)) v = 0.0;
            else if (!v || !r) v = std::nullopt;
            else v = 1.0;
        }
        return v;
    }
    Value negation() {
        if (word("not")) {
            Value v = negation();
            return v ? truth(*v == 0) : v;
        }
        return comparison();
    }
    Value comparison() {
        Value a = sum();
        static const char *ops[] = {"<=", ">=", "==", "!=", "<", ">"};
        for (const char *op : ops) {
            if (!symbol(op)) continue;
            Value b = sum();
            if (!a || !b) return std::nullopt;
            const std::string o(op);
            if (o == "<=") return truth(*a <= *b);
            if (o == ">=") return truth(*a >= *b);
            if (o == "==") return truth(*a == *b);
            if (o == "!=") return truth(*a != *b);
            if (o == "<") return truth(*a < *b);
            return truth(*a > *b);
        }
        return a;
    }
    Value sum() {
        Value v = product();
        for (;;) {
            if (symbol("+")) {
                Value r = product();
                v = (v && r) ? Value(*v + *r) : std::nullopt;
            } else if (symbol("-")) {
                Value r = product();
                v = (v && r) ? Value(*v - *r) : std::nullopt;
            } else {
                return v;
            }
        }
    }
    Value product() {
        Value v = unary();
        for (;;) {
            if (symbol("*")) {
                Value r = unary();
                v = (v && r) ? Value(*v * *r) : std::nullopt;
            } else if (symbol("/")) {
                Value r = unary();
                // A ratio over nothing counted has no value (a kernel without global loads
                // has no sectors per request), rather than an infinity.
                v = (v && r && *r != 0) ? Value(*v / *r) : std::nullopt;
            } else {
                return v;
            }
        }
    }
    Value unary() {
        if (symbol("-")) {
            Value v = unary();
            return v ? Value(-*v) : v;
        }
        return primary();
    }
    std::vector<Value> arguments() {
        std::vector<Value> args;
        if (!symbol("(")) fail("'(' expected after a function name");
        if (symbol(")")) return args;
        do args.push_back(disjunction());
        while (symbol(","));
        if (!symbol(")")) fail("')' expected");
        return args;
    }
    Value call(const std::string &f) {
        auto args = arguments();
        auto need = [&](std::size_t n) {
            if (args.size() != n) fail(f + " takes " + std::to_string(n) + " arguments");
        };
        if (f == "first") {  // the first argument that has a value
            for (const auto &a : args)
                if (a) return a;
            return std::nullopt;
        }
        for (const auto &a : args)
            if (!a) return std::nullopt;
        if (f == "min") { need(2); return std::fmin(*args[0], *args[1]); }
        if (f == "max") { need(2); return std::fmax(*args[0], *args[1]); }
        if (f == "round") { need(1); return std::round(*args[0]); }
        if (f == "abs") { need(1); return std::fabs(*args[0]); }
        if (f == "log2") { need(1); return *args[0] > 0 ? Value(std::log2(*args[0])) : std::nullopt; }
        if (f == "pow") { need(2); return std::pow(*args[0], *args[1]); }
        if (f == "clamp") { need(3); return std::fmin(std::fmax(*args[0], *args[1]), *args[2]); }
        fail("unknown function " + f);
    }
    Value primary() {
        skip();
        if (pos_ >= s_.size()) fail("value expected");
        const char c = s_[pos_];
        if (c == '(') {
            ++pos_;
            Value v = disjunction();
            if (!symbol(")")) fail("')' expected");
            return v;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
            std::size_t used = 0;
            const double v = std::stod(s_.substr(pos_), &used);
            pos_ += used;
            return v;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            const std::size_t start = pos_;
            while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_' || s_[pos_] == '.'))
                ++pos_;
            const std::string name = s_.substr(start, pos_ - start);
            skip();
            if (pos_ < s_.size() && s_[pos_] == '(') return call(name);
            names.insert(name);
            return lookup_ ? lookup_(name) : std::nullopt;
        }
        fail(std::string("unexpected '") + c + "'");
    }
};

}  // namespace

std::optional<double> evaluate(const std::string &text, const Lookup &lookup) {
    Parser p(text, lookup);
    return p.parse();
}

std::set<std::string> names_in(const std::string &text) {
    Parser p(text, nullptr);
    p.parse();
    return p.names;
}

}  // namespace gmexplain
