// expect: an RCU needs at least one entry
// RCU<0> is not a Result Collection Unit.
#include <gpuarch/sched/rcu.hpp>

#ifdef GPUARCH_FAILTEST_SHOULD_FAIL
using Unit = gpuarch::sched::RCU<0>;
#else
using Unit = gpuarch::sched::RCU<8>;
#endif

int main() {
    Unit rcu;
    return rcu.empty() ? 0 : 1;
}
