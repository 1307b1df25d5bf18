from conan import ConanFile
from conan.tools.cmake import CMake, CMakeToolchain, cmake_layout
from conan.tools.files import copy


class GpuarchConan(ConanFile):
    name = "gpuarch"
    version = "0.1.0"
    description = "Header-only C++20 GPU streaming-multiprocessor components for architecture research"
    license = "MIT"
    topics = ("gpu", "simulator", "computer-architecture", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    exports_sources = "CMakeLists.txt", "cmake/*", "include/*", "LICENSE"
    no_copy_source = True

    def requirements(self):
        self.requires("boost/1.83.0", options={"header_only": True})
        self.requires("range-v3/0.12.0")

    def layout(self):
        cmake_layout(self)

    def generate(self):
        tc = CMakeToolchain(self)
        # Only the library. The recipe's CMakeLists.txt is the top-level project here, so every optional part
        # is switched off; with these four OFF the configure reads nothing outside exports_sources and needs
        # only Boost, range-v3 and Threads (CTest conan.recipe_exports_build configures exactly this).
        tc.cache_variables["GPUARCH_BUILD_TESTS"] = "OFF"
        tc.cache_variables["GPUARCH_BUILD_EXAMPLES"] = "OFF"
        tc.cache_variables["GPUARCH_BUILD_BENCH"] = "OFF"
        tc.cache_variables["GPUARCH_BUILD_TOOLS"] = "OFF"
        tc.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()

    def package(self):
        copy(self, "LICENSE", self.source_folder, f"{self.package_folder}/licenses")
        cmake = CMake(self)
        cmake.install()

    def package_id(self):
        self.info.clear()

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "gpuarch")
        self.cpp_info.set_property("cmake_target_name", "gpuarch::gpuarch")
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
        self.cpp_info.requires = ["boost::headers", "range-v3::range-v3"]
        # GPU<> ticks SMs on host threads (TimingOptions::host_threads).
        if self.settings.os in ("Linux", "FreeBSD"):
            self.cpp_info.system_libs = ["pthread"]
