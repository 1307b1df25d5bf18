// Lai 2013 Table 4.1 reproduced on the GK104-like SM (KeplerGK104Frontend, GTO, KeplerBankedRF, SimdExec,
// IdealMemory): every row within 5 % of the measured throughput, except IMAD R0, R1, R3, R9, whose gap is
// pinned here and explained in docs/calibration.md.
#include <doctest/doctest.h>

#include <gpuarch/regfile/ideal_rf.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <gpuarch/support/table41_support.hpp>

namespace {
using namespace gpuarch;
using namespace gpuarch::calibration_test;

const Table41Row& row(std::string_view entry) {
    for (const auto& r : table_4_1())
        if (r.entry == entry) return r;
    FAIL("no Table 4.1 row for " << entry);
    return table_4_1().front();
}

// Simulates the row and checks it within `tolerance` (relative) of Lai's measurement.
void check_row(std::string_view entry, double tolerance = 0.05) {
    const Table41Row& r = row(entry);
    const Measurement m = measure(entry);
    INFO(r.sass << ": measured " << r.measured << ", simulated " << m.math_per_cycle << " ("
                << 100.0 * relative_error(m.math_per_cycle, r.measured) << " %)");
    CHECK(std::abs(relative_error(m.math_per_cycle, r.measured)) <= tolerance);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
} // namespace

TEST_CASE("every Table 4.1 kernel exists and reads the registers its SASS form names (RegId == SASS number)") {
    const func::Module& module = table41_module();
    const std::string text = read_file(table41_ptx_path());
    for (const auto& r : table_4_1()) {
        INFO(r.sass);
        // The kernel's comment carries the row and the measured value (one home: the generator's table).
        std::ostringstream header;
        header << "// Lai 2013 Table 4.1: " << r.sass << " -- measured " << r.measured;
        CHECK(text.find(header.str()) != std::string::npos);
        const ir::Kernel& kernel = module.ir().kernels.at(
            static_cast<std::size_t>(std::find_if(module.ir().kernels.begin(), module.ir().kernels.end(),
                                                  [&](const ir::Kernel& k) { return k.name == r.entry; }) -
                                     module.ir().kernels.begin()));
        for (ir::RegId k = 0; k < 32; ++k) CHECK(kernel.registers[k].name == "%r" + std::to_string(k));
        // The first math instruction writes R0 and reads exactly the row's sources, in order.
        const ir::Instruction* first = nullptr;
        for (const auto& inst : kernel.code)
            if ((inst.op_class == ir::OpClass::fp32 || inst.op_class == ir::OpClass::int_mul ||
                 (inst.op == ir::Opcode::add && inst.op_class == ir::OpClass::int_alu)) &&
                inst.num_defs == 1 && inst.defs[0] == 0) {
                first = &inst;
                break;
            }
        REQUIRE(first != nullptr);
        std::vector<unsigned> uses;
        // Sources in operand order (defs/uses lists are sets, so a repeated register appears once).
        for (unsigned k = 1; k < first->num_operands; ++k) uses.push_back(first->operands[k].reg);
        CHECK(uses == r.sources);
    }
}

TEST_CASE("the register file classifies every Table 4.1 row as the thesis does") {
    for (const auto& r : table_4_1()) {
        INFO(r.sass);
        std::vector<ir::RegId> regs(r.sources.begin(), r.sources.end());
        const int d = regfile::KeplerBankedRF::conflict_degree(regs);
        const std::string_view s = r.sass;
        const int expected = (s.find("R1, R3, R9") != s.npos) ? 3 : (s.find("R1, R3") != s.npos) ? 2 : 1;
        CHECK(d == expected);
    }
}

// --- Table 4.1, left column ("dest = source": four dependent chains per thread) --------------------------------
TEST_CASE("Table 4.1 FADD R0, R1, R0 (chains, no conflict) is within 5 % of 128.7") { check_row("fadd_r0_r1_r0"); }
TEST_CASE("Table 4.1 FMUL R0, R1, R0 (chains, no conflict) is within 5 % of 129.0") { check_row("fmul_r0_r1_r0"); }
TEST_CASE("Table 4.1 FFMA R0, R1, R4, R0 (chains, no conflict) is within 5 % of 129.0") {
    check_row("ffma_r0_r1_r4_r0");
}
TEST_CASE("Table 4.1 IADD R0, R1, R0 (chains, no conflict) is within 5 % of 128.7") { check_row("iadd_r0_r1_r0"); }
TEST_CASE("Table 4.1 IMUL R0, R1, R0 (chains) is within 5 % of 33.2") { check_row("imul_r0_r1_r0"); }
TEST_CASE("Table 4.1 IMAD R0, R1, R4, R0 (chains) is within 5 % of 33.2") { check_row("imad_r0_r1_r4_r0"); }

// --- Table 4.1, right column (independent instructions) --------------------------------------------------------
TEST_CASE("Table 4.1 FADD R0, R1, R2 (no conflict) is within 5 % of 132.0") { check_row("fadd_r0_r1_r2"); }
TEST_CASE("Table 4.1 FADD R0, R1, R3 (2-way conflict) is within 5 % of 66.2") { check_row("fadd_r0_r1_r3"); }
TEST_CASE("Table 4.1 FMUL R0, R1, R2 (no conflict) is within 5 % of 132.0") { check_row("fmul_r0_r1_r2"); }
TEST_CASE("Table 4.1 FMUL R0, R1, R3 (2-way conflict) is within 5 % of 66.2") { check_row("fmul_r0_r1_r3"); }
TEST_CASE("Table 4.1 FFMA R0, R1, R4, R5 (no conflict) is within 5 % of 132.0") { check_row("ffma_r0_r1_r4_r5"); }
TEST_CASE("Table 4.1 FFMA R0, R1, R3, R5 (2-way conflict) is within 5 % of 66.2") { check_row("ffma_r0_r1_r3_r5"); }
TEST_CASE("Table 4.1 FFMA R0, R1, R3, R9 (3-way conflict) is within 5 % of 44.2") { check_row("ffma_r0_r1_r3_r9"); }
TEST_CASE("Table 4.1 IADD R0, R1, R2 (no conflict) is within 5 % of 132.4") { check_row("iadd_r0_r1_r2"); }
TEST_CASE("Table 4.1 IADD R0, R1, R3 (2-way conflict) is within 5 % of 66.2") { check_row("iadd_r0_r1_r3"); }
TEST_CASE("Table 4.1 IMUL R0, R1, R2 is within 5 % of 33.2") { check_row("imul_r0_r1_r2"); }
TEST_CASE("Table 4.1 IMUL R0, R1, R3 (2-way, hidden by the IMU) is within 5 % of 33.2") { check_row("imul_r0_r1_r3"); }
TEST_CASE("Table 4.1 IMAD R0, R1, R4, R5 is within 5 % of 33.1") { check_row("imad_r0_r1_r4_r5"); }
TEST_CASE("Table 4.1 IMAD R0, R1, R3, R5 (2-way, hidden by the IMU) is within 5 % of 33.2") {
    check_row("imad_r0_r1_r3_r5");
}

TEST_CASE("Table 4.1 IMAD R0, R1, R3, R9 (3-way): the model stays at the IMU cap, 21 % above Lai's 26.5") {
    // Known gap (docs/calibration.md, "What is missing"): three odd0 reads take 3 cycles, below the IMU slice's
    // 4 cycles per warp instruction, so the model predicts the unconflicted 32. Lai measures 26.5, i.e. about
    // 5 cycles per instruction per scheduler. A model change that closes the gap must update the document.
    const Table41Row& r = row("imad_r0_r1_r3_r9");
    const Measurement m = measure(r.entry);
    CHECK(m.math_per_cycle == doctest::Approx(32.0).epsilon(0.01));
    CHECK(relative_error(m.math_per_cycle, r.measured) > 0.15);
}

// --- Mechanism checks ----------------------------------------------------------------------------------------------
TEST_CASE("the ~128 ceiling comes from the register banks: with IdealRF the conflict-free FFMA stream runs above 160") {
    const Measurement banked = measure("ffma_r0_r1_r4_r5");
    const Measurement ideal = measure<GK104SM<regfile::IdealRF>>("ffma_r0_r1_r4_r5");
    CHECK(banked.math_per_cycle <= 128.0);
    CHECK(ideal.math_per_cycle > 160.0);
}

TEST_CASE("FFMA with repeated sources spread over all four banks dual-issues past the ceiling, up to the SP limit") {
    // Lai 2013 Sec. 4.2.3: "FFMA RA, RB, RB, RA" with careful code reaches about 178. Here each pair of FFMAs
    // reads the four banks once, so a scheduler dual-issues until the SP groups (192 lanes) bind.
    const Measurement m = measure("ffma_repeated_sources");
    CHECK(m.math_per_cycle > 1.3 * 128.0);
    CHECK(m.math_per_cycle <= 192.0);
    CHECK(m.dual_issues > 0);
}

TEST_CASE("the Table 4.1 rates do not depend on the collector count once a scheduler has two collectors") {
    const double four = measure("ffma_r0_r1_r3_r9").math_per_cycle;
    const double two = measure<GK104SM<regfile::KeplerBankedRFT<2>>>("ffma_r0_r1_r3_r9").math_per_cycle;
    const double eight = measure<GK104SM<regfile::KeplerBankedRFT<8>>>("ffma_r0_r1_r4_r5").math_per_cycle;
    CHECK(two == doctest::Approx(four).epsilon(0.005));
    CHECK(eight == doctest::Approx(measure("ffma_r0_r1_r4_r5").math_per_cycle).epsilon(0.005));
}
