using System;
using System.Collections.Generic;
using System.IO;
using System.Text;

namespace Gmlab.Tests {

/// <summary>An assertion that did not hold; its message says what was expected.</summary>
sealed class CheckFailed : Exception {
  public CheckFailed(string message) : base(message) {}
}

static class Check {
  public static void True(bool condition, string what) {
    if (!condition) throw new CheckFailed(what);
  }

  public static void Equal<T>(T expected, T actual, string what) {
    if (!EqualityComparer<T>.Default.Equals(expected, actual))
      throw new CheckFailed(what + ": expected <" + expected + ">, got <" + actual + ">");
  }

  public static void Near(double expected, double actual, double relative, string what) {
    if (Math.Abs(expected - actual) > relative * Math.Abs(expected))
      throw new CheckFailed(what + ": expected " + expected + " (within " + relative * 100 + "%), got " + actual);
  }

  public static void Contains(string part, string text, string what) {
    if (text == null || !text.Contains(part))
      throw new CheckFailed(what + ": expected text containing <" + part + ">, got <" + text + ">");
  }

  /// <summary>action must throw GmlabException with this status and a message containing messagePart.</summary>
  public static GmlabException Throws(Status status, string messagePart, Action action, string what) {
    GmlabException e = Throws<GmlabException>(messagePart, action, what);
    if (e.Status != status)
      throw new CheckFailed(what + ": expected status " + Named(status) + ", got " + Named(e.Status) + " (" + e.Message + ")");
    return e;
  }

  /// <summary>action must throw exactly T (not a subclass) with a message containing messagePart.</summary>
  public static T Throws<T>(string messagePart, Action action, string what) where T : Exception {
    try {
      action();
    } catch (Exception e) {
      if (e.GetType() != typeof(T))
        throw new CheckFailed(what + ": expected " + typeof(T).Name + ", got " + e.GetType().Name + ": " + e.Message);
      if (!e.Message.Contains(messagePart))
        throw new CheckFailed(what + ": expected a message containing <" + messagePart + ">, got <" + e.Message + ">");
      return (T)e;
    }
    throw new CheckFailed(what + ": expected " + typeof(T).Name + " <" + messagePart + ">, nothing was thrown");
  }

  static string Named(Status status) {
    return status + " (" + Library.StatusText(status) + ")";
  }
}

/// <summary>Files of the source tree the tests read (GMLAB_SOURCE_DIR, set by CTest).</summary>
static class Sources {
  public static string Read(params string[] parts) {
    string root = Environment.GetEnvironmentVariable("GMLAB_SOURCE_DIR");
    if (string.IsNullOrEmpty(root))
      throw new CheckFailed("GMLAB_SOURCE_DIR is not set: it names the source tree (CTest sets it)");
    string[] all = new string[parts.Length + 1];
    all[0] = root;
    Array.Copy(parts, 0, all, 1, parts.Length);
    return File.ReadAllText(Path.Combine(all));
  }

  /// <summary>The committed run of the default suite on an H200.</summary>
  public static string H200Run() {
    return Read("results", "nvidia-h200.json");
  }

  /// <summary>The H200 run's result of one experiment (the document may hold more than the three read here).</summary>
  public static Result H200Result(string experiment) {
    string run = H200Run();
    int count = Result.RunResultCount(run);
    for (int i = 0; i < count; ++i) {
      Result result = Result.FromRunJson(run, i);
      if (result.Experiment == experiment) return result;
      result.Dispose();
    }
    throw new CheckFailed("results/nvidia-h200.json holds no " + experiment + " result");
  }
}

static class Json {
  /// <summary>The text without whitespace outside string literals, so checks do not depend on indentation.</summary>
  public static string Compact(string json) {
    var result = new StringBuilder(json.Length);
    bool inString = false, escaped = false;
    foreach (char c in json) {
      if (inString) {
        result.Append(c);
        if (escaped) escaped = false;
        else if (c == '\\') escaped = true;
        else if (c == '"') inString = false;
      } else if (!char.IsWhiteSpace(c)) {
        result.Append(c);
        if (c == '"') inString = true;
      }
    }
    return result.ToString();
  }
}

}
