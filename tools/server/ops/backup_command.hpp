// gmlab-server backup --db URL --to FILE
// gmlab-server restore --from FILE --db URL
// (storage/backup.hpp says how each backend does it.) Each returns the exit
// status: 0 done, 1 failed (the message says why; nothing was left behind),
// 2 wrong arguments.
#pragma once

namespace gmserver {

// argv[0] is the subcommand's name.
int backup_command(int argc, char **argv);
int restore_command(int argc, char **argv);

}  // namespace gmserver
