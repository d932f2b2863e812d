// The host link's theoretical bandwidth: PCIe arithmetic and the sysfs reader
// on a fake /sys tree (the NVML path needs a GPU: tests/core/device_gpu_test.cpp).
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "core/device/host_link.hpp"

namespace fs = std::filesystem;
using namespace gmlab;

namespace {

struct FakeSys {
    fs::path root;
    FakeSys() {
        char tmpl[] = "/tmp/gmlab-sysfs-XXXXXX";
        root = mkdtemp(tmpl);
    }
    ~FakeSys() {
        std::error_code ec;
        fs::remove_all(root, ec);
    }
    static void put(const fs::path &p, const std::string &text) {
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text << "\n";
    }
    // A device below a root port, linked from bus/pci/devices as Linux does.
    fs::path device(const std::string &port, const std::string &dev) {
        const fs::path real = root / "devices/pci0000:00" / port / dev;
        fs::create_directories(real);
        fs::create_directories(root / "bus/pci/devices");
        fs::create_directory_symlink(real, root / "bus/pci/devices" / dev);
        return real;
    }
};

}  // namespace

TEST(HostLink, PcieLaneBandwidthPerGeneration) {
    EXPECT_DOUBLE_EQ(pcie_lane_gbs(1), 0.25);
    EXPECT_DOUBLE_EQ(pcie_lane_gbs(2), 0.5);
    EXPECT_NEAR(pcie_lane_gbs(3) * 16, 15.754, 0.001);   // the familiar "PCIe 3.0 x16: 15.75 GB/s"
    EXPECT_NEAR(pcie_lane_gbs(4) * 16, 31.508, 0.001);
    EXPECT_NEAR(pcie_lane_gbs(5) * 16, 63.015, 0.001);
    EXPECT_NEAR(pcie_lane_gbs(6) * 16, 121.0, 0.001);     // FLIT mode, 242 of 256 bytes
    EXPECT_EQ(pcie_lane_gbs(0), 0);
    EXPECT_EQ(pcie_lane_gbs(9), 0);
}

TEST(HostLink, GenerationOfATransferRate) {
    EXPECT_EQ(pcie_generation_of(2.5), 1);
    EXPECT_EQ(pcie_generation_of(8.0), 3);
    EXPECT_EQ(pcie_generation_of(32.0), 5);
    EXPECT_EQ(pcie_generation_of(64.0), 6);
    EXPECT_EQ(pcie_generation_of(10.0), 0);
}

TEST(HostLink, SysfsTakesTheSlowerOfDeviceAndSlot) {
    FakeSys s;
    const fs::path dev = s.device("0000:00:01.0", "0000:1b:00.0");
    FakeSys::put(dev / "max_link_speed", "32.0 GT/s PCIe");
    FakeSys::put(dev / "max_link_width", "16");
    FakeSys::put(dev / "current_link_speed", "2.5 GT/s PCIe");  // an idle GPU trains its link down
    FakeSys::put(dev / "current_link_width", "16");
    FakeSys::put(dev.parent_path() / "max_link_speed", "16.0 GT/s PCIe");  // a PCIe 4.0 slot
    FakeSys::put(dev.parent_path() / "max_link_width", "8");
    // CUDA names the device in upper case; sysfs in lower case.
    const HostLink l = host_link_from_sysfs("0000:1B:00.0", s.root.string());
    EXPECT_EQ(l.type, "pcie");
    EXPECT_EQ(l.generation, 4);
    EXPECT_EQ(l.width, 8);
    EXPECT_EQ(l.current_generation, 1);
    EXPECT_EQ(l.current_width, 16);
    EXPECT_NEAR(l.theoretical_gbs, 15.754, 0.001);
    EXPECT_EQ(l.source, "sysfs");
    EXPECT_EQ(describe(l), "PCIe 4.0 x8, 15.8 GB/s per direction (sysfs)");
    const nlohmann::json j = to_json(l);
    EXPECT_EQ(j["generation"], 4);
    EXPECT_FALSE(j.contains("reason"));
}

TEST(HostLink, OlderKernelsWriteTheRateWithoutDecimals) {
    FakeSys s;
    const fs::path dev = s.device("0000:00:02.0", "0000:02:00.0");
    FakeSys::put(dev / "max_link_speed", "8 GT/s");
    FakeSys::put(dev / "max_link_width", "16");
    const HostLink l = host_link_from_sysfs("0000:02:00.0", s.root.string());
    EXPECT_EQ(l.generation, 3);
    EXPECT_EQ(l.width, 16);  // the port says nothing: the device's own maximum
}

TEST(HostLink, MissingSysfsSaysWhy) {
    FakeSys s;
    const HostLink l = host_link_from_sysfs("0000:03:00.0", s.root.string());
    EXPECT_EQ(l.theoretical_gbs, 0);
    EXPECT_EQ(l.type, "unknown");
    EXPECT_NE(l.reason.find("0000:03:00.0"), std::string::npos) << l.reason;
    const nlohmann::json j = to_json(l);
    EXPECT_FALSE(j.contains("theoretical_gbs"));
    EXPECT_TRUE(j.contains("reason"));
    EXPECT_EQ(describe(l).rfind("not known: ", 0), 0u);
}

TEST(HostLink, IntegratedGpusHaveNoHostLink) {
    const HostLink l = query_host_link("0000:00:00.0", true, "/nonexistent");
    EXPECT_EQ(l.type, "integrated");
    EXPECT_EQ(l.theoretical_gbs, 0);
    EXPECT_FALSE(l.reason.empty());
}
