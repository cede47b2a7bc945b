#pragma once
// Where the bundled model files (models/*.json) are, for a ptxsim binary
// wherever it runs: in its build folder, copied or carried to another
// machine (a GPU lease gets the checkout at another path), or installed
// beside a models/ folder.
#include <filesystem>

namespace ptxsim::models {

// $PTXSIM_MODELS when set; else the nearest folder named models/ holding
// h800.json in the folders above the binary this code was loaded from (the
// executable, or ptxsim's libcuda.so.1); else `source_dir`/models, the
// checkout the build came from, if it is still there; else empty.
std::filesystem::path models_dir(const char* source_dir);

// models_dir()/h800.json, the default model; `source_dir`/models/h800.json
// when no folder was found (so that the error names where it looked).
std::filesystem::path default_model_path(const char* source_dir);

} // namespace ptxsim::models
