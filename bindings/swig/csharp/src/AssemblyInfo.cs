using System.Runtime.CompilerServices;

// The binding's own tests (GmlabTests.exe) read the behaviour table with the
// assembly's JSON reader.
[assembly: InternalsVisibleTo("GmlabTests")]
