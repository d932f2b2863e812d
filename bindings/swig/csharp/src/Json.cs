using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Gmlab {

/// <summary>
/// Reads the JSON the library returns (descriptions, parameters, device info)
/// into plain .NET values: objects as IReadOnlyDictionary&lt;string, object&gt;,
/// arrays as IReadOnlyList&lt;object&gt;, numbers as double, strings, bools and
/// null. netstandard2.0 has no JSON reader of its own, and the package takes
/// no dependency for these few, small, well-formed documents.
/// </summary>
internal sealed class Json {
  readonly string text;
  readonly string what;
  int at;

  Json(string text, string what) {
    this.text = text;
    this.what = what;
  }

  internal static object Parse(string text, string what) {
    var reader = new Json(text, what);
    object value = reader.Value();
    reader.Space();
    if (reader.at != text.Length) throw reader.Fail("text after the value");
    return value;
  }

  internal static IReadOnlyDictionary<string, object> Object(object value, string what) {
    if (value is IReadOnlyDictionary<string, object> o) return o;
    throw new GmlabException(Status.Internal, "gmlab: " + what + " is not a JSON object");
  }

  object Value() {
    Space();
    if (at >= text.Length) throw Fail("a value");
    char c = text[at];
    if (c == '{') return ObjectValue();
    if (c == '[') return ArrayValue();
    if (c == '"') return StringValue();
    if (Word("true")) return true;
    if (Word("false")) return false;
    if (Word("null")) return null;
    return Number();
  }

  IReadOnlyDictionary<string, object> ObjectValue() {
    var members = new Dictionary<string, object>(StringComparer.Ordinal);
    ++at;
    if (Next('}')) return members;
    do {
      Space();
      if (at >= text.Length || text[at] != '"') throw Fail("a member name");
      string name = StringValue();
      if (!Next(':')) throw Fail("':'");
      members[name] = Value();
    } while (Next(','));
    if (!Next('}')) throw Fail("',' or '}'");
    return members;
  }

  IReadOnlyList<object> ArrayValue() {
    var items = new List<object>();
    ++at;
    if (Next(']')) return items;
    do items.Add(Value()); while (Next(','));
    if (!Next(']')) throw Fail("',' or ']'");
    return items;
  }

  string StringValue() {
    var s = new StringBuilder();
    ++at;
    while (at < text.Length && text[at] != '"') {
      char c = text[at++];
      if (c != '\\') { s.Append(c); continue; }
      if (at >= text.Length) break;
      char e = text[at++];
      switch (e) {
        case 'n': s.Append('\n'); break;
        case 't': s.Append('\t'); break;
        case 'r': s.Append('\r'); break;
        case 'b': s.Append('\b'); break;
        case 'f': s.Append('\f'); break;
        case 'u':
          if (at + 4 > text.Length) throw Fail("four hex digits");
          s.Append((char)int.Parse(text.Substring(at, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
          at += 4;
          break;
        default: s.Append(e); break;  // \" \\ \/
      }
    }
    if (at >= text.Length) throw Fail("the closing '\"'");
    ++at;
    return s.ToString();
  }

  double Number() {
    int start = at;
    while (at < text.Length && "+-0123456789.eE".IndexOf(text[at]) >= 0) ++at;
    double value;
    if (start == at || !double.TryParse(text.Substring(start, at - start), NumberStyles.Float,
                                        CultureInfo.InvariantCulture, out value))
      throw Fail("a value");
    return value;
  }

  bool Word(string word) {
    if (string.CompareOrdinal(text, at, word, 0, word.Length) != 0) return false;
    at += word.Length;
    return true;
  }

  bool Next(char c) {
    Space();
    if (at < text.Length && text[at] == c) { ++at; return true; }
    return false;
  }

  void Space() {
    while (at < text.Length && char.IsWhiteSpace(text[at])) ++at;
  }

  Exception Fail(string expected) {
    return new GmlabException(Status.Internal, "gmlab: " + what + " is not valid JSON: expected " + expected +
                              " at offset " + at);
  }
}

}
