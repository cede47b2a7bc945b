// Where a ptxsim binary finds the bundled models (models/models_dir.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "models/models_dir.hpp"

namespace ptxsim::models {
namespace {

namespace fs = std::filesystem;

struct env_unset {
    std::string saved;
    bool had;
    env_unset() : had(std::getenv("PTXSIM_MODELS") != nullptr) {
        if (had) saved = std::getenv("PTXSIM_MODELS");
        unsetenv("PTXSIM_MODELS");
    }
    ~env_unset() {
        if (had) setenv("PTXSIM_MODELS", saved.c_str(), 1);
    }
};

TEST(models_dir, the_environment_comes_first) {
    env_unset clean;
    setenv("PTXSIM_MODELS", "/somewhere/else", 1);
    EXPECT_EQ(models_dir(PTXSIM_SOURCE), fs::path("/somewhere/else"));
    EXPECT_EQ(default_model_path(PTXSIM_SOURCE), fs::path("/somewhere/else/h800.json"));
}

TEST(models_dir, found_above_the_binary_when_the_checkout_it_was_built_from_is_gone) {
    env_unset clean;
    const fs::path exe = fs::read_symlink("/proc/self/exe");
    const fs::path source = fs::canonical(PTXSIM_SOURCE);
    if (exe.string().rfind(source.string() + "/", 0) != 0)
        GTEST_SKIP() << "this test binary (" << exe << ") is not built inside the checkout " << source;
    // A source folder that does not exist stands for a build carried to
    // another machine: the models are found by walking up from the binary.
    EXPECT_EQ(models_dir("/nonexistent/ptxsim"), source / "models");
}

TEST(models_dir, from_a_build_inside_the_checkout_its_models) {
    env_unset clean;
    EXPECT_TRUE(fs::equivalent(models_dir(PTXSIM_SOURCE), fs::path(PTXSIM_SOURCE) / "models"));
    EXPECT_TRUE(fs::equivalent(default_model_path(PTXSIM_SOURCE), fs::path(PTXSIM_SOURCE) / "models" / "h800.json"));
}

} // namespace
} // namespace ptxsim::models
