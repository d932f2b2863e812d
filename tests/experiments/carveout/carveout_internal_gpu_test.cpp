// carveout sets the preference on its kernel, a function attribute that
// stays for the whole process: the value found is what the kernel holds
// afterwards. Reads the attribute directly, so it links the internal library.
#include <cuda_runtime_api.h>

#include "experiments/carveout/carveout.cuh"
#include "gpu_fixture.hpp"

namespace {

int preference() {
    cudaFuncAttributes a{};
    EXPECT_EQ(gmlab::kernels::l1_reads_attributes(&a), cudaSuccess);
    return a.preferredShmemCarveout;
}

}  // namespace

TEST_F(GpuTest, CarveoutPutsTheKernelsPreferenceBack) {
    ASSERT_EQ(gmlab::kernels::set_l1_reads_carveout(37), cudaSuccess);
    ASSERT_EQ(preference(), 37);
    for (int i = 0; i < 2; ++i) {
        nlohmann::json doc = run("carveout", R"({"carveouts": [0, 100], "working_sets_kib": [16, 320], "reads_per_sm": "4MiB"})");
        ASSERT_FALSE(doc.is_null());
        EXPECT_EQ(doc["summary"]["carveout_preference_found"].get<double>(), 37);
        EXPECT_EQ(preference(), 37) << "run " << i;
    }
    // A run refused before it starts leaves it too.
    gm_result *r = nullptr;
    EXPECT_EQ(gm_run(&r, ctx, "carveout", R"({"carveouts": [101]})"), GM_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(preference(), 37);
    gmlab::kernels::set_l1_reads_carveout(-1);
}
