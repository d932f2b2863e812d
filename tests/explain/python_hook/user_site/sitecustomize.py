# The program's own sitecustomize: gmlab's hook must still let it run.
import os

with open(os.environ["GMX_HOOK_LOG"], "a") as out:
    out.write("user sitecustomize\n")
