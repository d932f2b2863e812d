# Writes checksums.txt beside the jar's native libraries: "<sha256>  <file>"
# per library, which NativeLoader checks its cached copies against.
#   cmake -DDIR=<folder> -DFILES=a;b -P checksums.cmake
set(lines "")
foreach(name IN LISTS FILES)
  file(SHA256 "${DIR}/${name}" sum)
  string(APPEND lines "${sum}  ${name}\n")
endforeach()
file(WRITE "${DIR}/checksums.txt" "${lines}")
