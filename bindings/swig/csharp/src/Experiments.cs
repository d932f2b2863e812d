namespace Gmlab {

public partial class gmlab {
  /// <summary>Every experiment's name, in the registry's order.</summary>
  public static string[] ExperimentNames() {
    long count = ExperimentCount();
    var names = new string[count];
    for (long i = 0; i < count; ++i) names[i] = ExperimentName(i);
    return names;
  }
}

}
