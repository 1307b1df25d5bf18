// regen: arch=compute_80
// redux.sync (sm_80) from the __reduce_*_sync intrinsics: add/min/max on unsigned and signed values, and/or/xor,
// over the whole warp, over a membermask of even lanes, and inside a divergent branch (odd lanes only).
extern "C" __global__ void redux_all(const unsigned* in, unsigned* out) {
    const unsigned t = threadIdx.x;
    const unsigned v = in[blockIdx.x * blockDim.x + t];
    unsigned* o = out + (blockIdx.x * blockDim.x + t) * 11;
    o[0] = __reduce_add_sync(0xffffffffu, v);
    o[1] = static_cast<unsigned>(__reduce_add_sync(0xffffffffu, static_cast<int>(v)));
    o[2] = __reduce_min_sync(0xffffffffu, v);
    o[3] = static_cast<unsigned>(__reduce_min_sync(0xffffffffu, static_cast<int>(v)));
    o[4] = __reduce_max_sync(0xffffffffu, v);
    o[5] = static_cast<unsigned>(__reduce_max_sync(0xffffffffu, static_cast<int>(v)));
    o[6] = __reduce_and_sync(0xffffffffu, v);
    o[7] = __reduce_or_sync(0xffffffffu, v);
    o[8] = __reduce_xor_sync(0xffffffffu, v);
    o[9] = (t & 1) == 0 ? __reduce_add_sync(0x55555555u, v) : 0u;
    o[10] = (t & 1) == 1 ? static_cast<unsigned>(__reduce_max_sync(0xaaaaaaaau, static_cast<int>(v))) : 0u;
}
