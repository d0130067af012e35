# The SplitMix64 generator of cortes_rules/engine/rng.py on unsigned 64-bit
# integers, bit for bit: included by the compiled modules that draw chance.

cdef uint64_t _GOLDEN = 0x9E3779B97F4A7C15ULL


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _below(uint64_t *state, uint64_t n) noexcept nogil:
    # Rejection sampling, as engine/rng.py: limit = 2**64 - (2**64 % n).
    cdef uint64_t rem = (<uint64_t>0 - n) % n     # 2**64 % n, in 64 bits
    cdef uint64_t value
    while True:
        state[0] += _GOLDEN
        value = _mix(state[0])
        if rem == 0 or value < <uint64_t>0 - rem:
            return value % n
