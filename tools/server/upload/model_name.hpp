// One model, one name: the names that become keys (a GPU model's, an
// experiment's) must be what they look like. A name is refused when it holds
// an invisible or format character (zero-width spaces and joiners, the word
// joiner, soft hyphens, byte-order marks, fillers such as U+3164, tag
// characters: every Default_Ignorable_Code_Point and every format character),
// when it is not in NFKC form (full-width letters, superscripts, ligatures:
// forms that read as another name), or when it mixes scripts ("NVIDIA Н200"
// with a Cyrillic Н; Latin beside Han, kana or Hangul is allowed, as in
// Unicode's "highly restrictive" level). Unicode's tables come from ICU.
#pragma once

#include <string>
#include <string_view>

namespace gmserver {

// "" when the UTF-8 name is one the server keys by, else what is wrong with
// it, naming the character (e.g. "holds U+200B, an invisible or format character").
std::string name_problem(std::string_view utf8);

// The first invisible or format character of any UTF-8 text ("U+200B"), or
// "": no string of a document may hold one (ASCII text is passed at once).
std::string invisible_character(std::string_view utf8);

}  // namespace gmserver
