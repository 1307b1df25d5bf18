# Tests of the CUDA runtime (tools/cudart) and gpuarch-run, included from tools/cudart/CMakeLists.txt so that
# they exist exactly when the runtime is built. Unit tests: test_cudart (this folder's *.cpp); end to end: CUDA
# programs compiled with nvcc and run unmodified (programs.cmake).
set(cudart_tests_dir "${PROJECT_SOURCE_DIR}/tests/cudart")
find_package(doctest REQUIRED CONFIG)
file(GLOB cudart_unit_sources CONFIGURE_DEPENDS "${cudart_tests_dir}/*.cpp")
add_executable(test_cudart ${cudart_unit_sources})
target_link_libraries(test_cudart PRIVATE gpuarch_doctest_main doctest::doctest gpuarch_fatbin gpuarch_support
                      PkgConfig::GPUARCH_ZSTD PkgConfig::GPUARCH_LZ4 gpuarch_warnings)
target_compile_definitions(test_cudart PRIVATE GPUARCH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_test(NAME cudart COMMAND test_cudart)
include("${cudart_tests_dir}/programs.cmake")

add_test(NAME cudart.exported_symbols
         COMMAND "${cudart_tests_dir}/exported_symbols.sh" "$<TARGET_FILE:gpuarch_cudart>"
                 "${CUDAToolkit_LIBRARY_DIR}/libcudart.so.13")
set_tests_properties(cudart.exported_symbols PROPERTIES SKIP_RETURN_CODE 77)
