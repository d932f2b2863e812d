// Device selection for gmlab run/contribute: --devices, and the cluster
// launchers' local ranks read from the environment (no scheduler needed).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "devices.hpp"

using gmcli::select_devices;

namespace {

gmcli::EnvLookup env_of(std::map<std::string, std::string> vars) {
    return [vars = std::move(vars)](const char *name) -> const char * {
        const auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
    };
}

const gmcli::EnvLookup kNoEnv = env_of({});

}  // namespace

TEST(Devices, AllListsEveryVisibleDevice) {
    const auto s = select_devices("all", 3, kNoEnv);
    EXPECT_TRUE(s.error.empty());
    EXPECT_EQ(s.ordinals, (std::vector<int>{0, 1, 2}));
}

TEST(Devices, ListKeepsTheGivenOrder) {
    EXPECT_EQ(select_devices("2,0", 4, kNoEnv).ordinals, (std::vector<int>{2, 0}));
    EXPECT_EQ(select_devices("1", 2, kNoEnv).ordinals, (std::vector<int>{1}));
}

TEST(Devices, AMissingDeviceIsItsOwnError) {
    const auto s = select_devices("0,2", 2, env_of({{"CUDA_VISIBLE_DEVICES", "4,5"}}));
    EXPECT_TRUE(s.ordinals.empty());
    EXPECT_TRUE(s.no_such_device);
    EXPECT_NE(s.error.find("there is no device 2"), std::string::npos) << s.error;
    EXPECT_NE(s.error.find("devices 0..1"), std::string::npos) << s.error;
    EXPECT_NE(s.error.find("CUDA_VISIBLE_DEVICES=4,5"), std::string::npos) << s.error;
}

TEST(Devices, MalformedListsAreUsageErrors) {
    for (const char *bad : {"0,,1", "x", "-1", "1,", ",1", "0 1", "1,1", "99999999"}) {
        const auto s = select_devices(bad, 4, kNoEnv);
        EXPECT_TRUE(s.ordinals.empty()) << bad;
        EXPECT_FALSE(s.no_such_device) << bad;
        EXPECT_FALSE(s.error.empty()) << bad;
    }
}

TEST(Devices, DefaultIsDeviceZero) {
    const auto s = select_devices("", 4, kNoEnv);
    EXPECT_EQ(s.ordinals, (std::vector<int>{0}));
    EXPECT_TRUE(s.why.empty());
}

TEST(Devices, SlurmLocalIdPicksTheTasksGpu) {
    const auto s = select_devices("", 4, env_of({{"SLURM_LOCALID", "3"}}));
    EXPECT_EQ(s.ordinals, (std::vector<int>{3}));
    EXPECT_NE(s.why.find("SLURM_LOCALID=3"), std::string::npos) << s.why;
}

TEST(Devices, OpenMpiLocalRankComesBeforeSlurm) {
    // mpirun inside a Slurm allocation: the MPI rank is the task's own.
    const auto s = select_devices("", 4, env_of({{"SLURM_LOCALID", "0"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "2"}}));
    EXPECT_EQ(s.ordinals, (std::vector<int>{2}));
}

TEST(Devices, OneBoundGpuIsDeviceZeroWhateverTheRank) {
    // srun --gpus-per-task=1: CUDA_VISIBLE_DEVICES holds the task's one GPU.
    const auto s = select_devices("", 1, env_of({{"SLURM_LOCALID", "5"}, {"CUDA_VISIBLE_DEVICES", "5"}}));
    EXPECT_EQ(s.ordinals, (std::vector<int>{0}));
    EXPECT_TRUE(s.error.empty());
}

TEST(Devices, MoreTasksThanGpusIsAnError) {
    const auto s = select_devices("", 2, env_of({{"SLURM_LOCALID", "2"}}));
    EXPECT_TRUE(s.ordinals.empty());
    EXPECT_TRUE(s.no_such_device);
    EXPECT_NE(s.error.find("--gpus-per-task=1"), std::string::npos) << s.error;
}

TEST(Devices, AnExplicitListOverridesTheLauncher) {
    EXPECT_EQ(select_devices("1", 4, env_of({{"SLURM_LOCALID", "3"}})).ordinals, (std::vector<int>{1}));
}

TEST(Devices, GarbageLocalRankIsAUsageError) {
    const auto s = select_devices("", 4, env_of({{"SLURM_LOCALID", "abc"}}));
    EXPECT_TRUE(s.ordinals.empty());
    EXPECT_FALSE(s.no_such_device);
}

TEST(Devices, PlaceholderIsReplacedEverywhere) {
    EXPECT_TRUE(gmcli::has_device_placeholder("run-{device}.json"));
    EXPECT_FALSE(gmcli::has_device_placeholder("run.json"));
    EXPECT_EQ(gmcli::expand_device_placeholder("d{device}/run-{device}.json", 12), "d12/run-12.json");
    EXPECT_EQ(gmcli::expand_device_placeholder("run.json", 3), "run.json");
}
