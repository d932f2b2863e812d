#include "upload/model_name.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

namespace gmserver {
namespace {

std::string code_point(UChar32 c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
    return buf;
}

bool invisible(UChar32 c) { return u_hasBinaryProperty(c, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || u_charType(c) == U_FORMAT_CHAR; }

// The script of a letter; Common (digits, punctuation, spaces) and Inherited
// (combining marks) belong to any.
UScriptCode script_of(UChar32 c) {
    UErrorCode err = U_ZERO_ERROR;
    const UScriptCode s = uscript_getScript(c, &err);
    return U_FAILURE(err) ? USCRIPT_INVALID_CODE : s;
}

bool any_script(UScriptCode s) { return s == USCRIPT_COMMON || s == USCRIPT_INHERITED || s == USCRIPT_INVALID_CODE; }

// The scripts a name may combine, as Unicode's "highly restrictive" level
// (UTS #39, 5.2) has it: one script, or Latin with the scripts Chinese,
// Japanese and Korean text is written in beside it. Latin with Cyrillic or
// Greek is what a look-alike name is made of.
bool may_combine(UScriptCode a, UScriptCode b) {
    static const UScriptCode kGroups[][4] = {{USCRIPT_LATIN, USCRIPT_HAN, USCRIPT_HIRAGANA, USCRIPT_KATAKANA},
                                             {USCRIPT_LATIN, USCRIPT_HAN, USCRIPT_BOPOMOFO, USCRIPT_BOPOMOFO},
                                             {USCRIPT_LATIN, USCRIPT_HAN, USCRIPT_HANGUL, USCRIPT_HANGUL}};
    if (a == b) return true;
    for (const auto &group : kGroups) {
        bool has_a = false, has_b = false;
        for (UScriptCode s : group) {
            has_a = has_a || s == a;
            has_b = has_b || s == b;
        }
        if (has_a && has_b) return true;
    }
    return false;
}

}  // namespace

std::string name_problem(std::string_view utf8) {
    const icu::UnicodeString name = icu::UnicodeString::fromUTF8(icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())));
    // Each script met, with its first character, for the message.
    std::vector<std::pair<UScriptCode, UChar32>> seen;
    for (int32_t i = 0; i < name.length(); i = name.moveIndex32(i, 1)) {
        const UChar32 c = name.char32At(i);
        if (invisible(c)) return "holds " + code_point(c) + ", an invisible or format character";
        const UScriptCode s = script_of(c);
        if (any_script(s)) continue;
        for (const auto &[other, other_char] : seen)
            if (!may_combine(other, s))
                return std::string("mixes scripts: ") + uscript_getName(other) + " (" + code_point(other_char) + ") and " +
                       uscript_getName(s) + " (" + code_point(c) + ")";
        if (std::none_of(seen.begin(), seen.end(), [&](const auto &e) { return e.first == s; })) seen.emplace_back(s, c);
    }
    UErrorCode err = U_ZERO_ERROR;
    const icu::Normalizer2 *nfkc = icu::Normalizer2::getNFKCInstance(err);
    if (U_FAILURE(err)) return "cannot be checked (Unicode's normalisation data is missing)";
    const icu::UnicodeString normal = nfkc->normalize(name, err);
    if (U_FAILURE(err)) return "cannot be checked (Unicode's normalisation failed)";
    if (normal != name) {
        const int32_t at = nfkc->spanQuickCheckYes(name, err);
        const UChar32 c = name.char32At(at < name.length() ? at : 0);
        std::string as;
        normal.toUTF8String(as);
        return "is not in NFKC form: " + code_point(c) + " is a compatibility form (the name reads as \"" + as + "\")";
    }
    return "";
}

std::string invisible_character(std::string_view utf8) {
    const auto *s = reinterpret_cast<const uint8_t *>(utf8.data());
    const auto n = static_cast<int32_t>(utf8.size());
    int32_t i = 0;
    while (i < n && s[i] < 0x80) ++i;
    while (i < n) {
        UChar32 c = 0;
        U8_NEXT(s, i, n, c);
        if (c >= 0 && invisible(c)) return code_point(c);
    }
    return "";
}

}  // namespace gmserver
