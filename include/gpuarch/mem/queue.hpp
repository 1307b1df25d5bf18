#pragma once
// Preallocated FIFO queues for the memory path, and Downstream, the SM's port into the interconnect.
// Contract: a BoundedQueue never allocates after construction; pushing into a full one is a contract
// violation reported as gpuarch::Error (a component must test full()/can_send() first). A GrowingQueue
// doubles its storage when full, so it allocates only when it reaches a new high-water mark.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gpuarch/core/error.hpp>
#include <gpuarch/mem/access.hpp>

namespace gpuarch::mem {

template <class T> class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity = 1)
        : slots_(capacity == 0 ? 1 : capacity), slot_count_(slots_.size()), capacity_(capacity) {}

    std::size_t capacity() const { return capacity_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    bool full() const { return size_ >= capacity_; }
    std::size_t free_slots() const { return capacity_ - size_; }

    void push(const T& value) {
        if (full()) [[unlikely]]
            throw_full();
        slots_[wrap(head_ + size_)] = value;
        ++size_;
    }
    T& front() { return slots_[head_]; }
    const T& front() const { return slots_[head_]; }
    // i-th element from the front (0 = front).
    T& operator[](std::size_t i) { return slots_[wrap(head_ + i)]; }
    const T& operator[](std::size_t i) const { return slots_[wrap(head_ + i)]; }
    void pop() {
        head_ = wrap(head_ + 1);
        --size_;
    }
    // The index (0 = front) of the first element, front to back, for which pred(element) holds; size() when none.
    // The elements are visited as the two contiguous runs they occupy, without an index wrap per element (a DRAM
    // queue is scanned this way several times per command).
    template <class Pred> std::size_t find_if(Pred&& pred) const {
        const T* slots = slots_.data();
        const std::size_t first_run = std::min(size_, slot_count_ - head_);
        for (std::size_t i = 0; i < first_run; ++i)
            if (pred(slots[head_ + i])) return i;
        for (std::size_t i = 0; i < size_ - first_run; ++i)
            if (pred(slots[i])) return first_run + i;
        return size_;
    }
    // Removes the i-th element, keeping the order of the others. The shorter side moves: the elements before it
    // one place back (then the front goes) or those after it one place forward. FR-FCFS takes mostly from near the
    // front of a DRAM queue, which moving the tail made a thousand instructions a command.
    void erase(std::size_t i) {
        if (i < size_ / 2) {
            for (std::size_t k = i; k > 0; --k) (*this)[k] = std::move((*this)[k - 1]);
            pop();
            return;
        }
        for (std::size_t k = i; k + 1 < size_; ++k) (*this)[k] = std::move((*this)[k + 1]);
        --size_;
    }
    void clear() {
        head_ = 0;
        size_ = 0;
    }

private:
    // slot_count_ rather than slots_.size(): the vector's size is a pointer difference divided by the element's size,
    // a multiplication for the 48- to 80-byte elements of the DRAM and interconnect queues, in every index.
    std::size_t wrap(std::size_t index) const { return index >= slot_count_ ? index - slot_count_ : index; }
    // Out of line, so that push() stays small enough to inline into every producer (the message's string building
    // kept it a call: 2% of syrk's host time on GTX480).
    [[noreturn, gnu::cold, gnu::noinline]] void throw_full() const {
        throw Error("a bounded memory queue of capacity " + std::to_string(capacity_) +
                    " was pushed while full; the producer must test full() first");
    }

    std::vector<T> slots_;
    std::size_t slot_count_; // slots_.size(), fixed at construction
    std::size_t capacity_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

template <class T> class GrowingQueue {
public:
    explicit GrowingQueue(std::size_t initial_capacity = 16) : slots_(initial_capacity == 0 ? 1 : initial_capacity) {}
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void push(const T& value) {
        if (size_ == slots_.size()) grow();
        slots_[(head_ + size_) % slots_.size()] = value;
        ++size_;
    }
    T& front() { return slots_[head_]; }
    const T& front() const { return slots_[head_]; }
    void pop() {
        head_ = (head_ + 1) % slots_.size();
        --size_;
    }

private:
    void grow() {
        std::vector<T> bigger(slots_.size() * 2);
        for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(slots_[(head_ + i) % slots_.size()]);
        slots_ = std::move(bigger);
        head_ = 0;
    }
    std::vector<T> slots_;
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

// The SM's port into the interconnect: a bounded packet queue the L1 fills (can_send/send) and the
// interconnect drains (empty/front/pop). The memory system owns one per SM; when the interconnect cannot
// take packets the queue fills, can_send() turns false and the L1's miss queue backs up (LDST_ICNT).
// `occupancy`, when given, is a counter the queue keeps equal to the packets queued in every Downstream that
// shares it (the interconnect uses it to skip the scan of its inputs when all of them are empty); it must outlive
// the queue. It is atomic because the SMs' timing phases, which send, may run on several host threads at once
// (gpu.hpp); relaxed order suffices, as the interconnect reads it only after the threads' barrier. An atomic
// read-modify-write costs about as much as the rest of a send, so it is used only while set_concurrent(true) says
// that other queues sharing the counter may send or pop at the same time; otherwise a relaxed load and store keep it.
class Downstream {
public:
    explicit Downstream(std::size_t capacity = 8, std::atomic<std::uint64_t>* occupancy = nullptr)
        : queue_(capacity), occupancy_(occupancy) {}
    bool can_send() const { return !queue_.full(); }
    void send(const MemPacket& packet) {
        queue_.push(packet);
        if (occupancy_ != nullptr) add_to_occupancy(1);
    }

    bool empty() const { return queue_.empty(); }
    const MemPacket& front() const { return queue_.front(); }
    void pop() {
        queue_.pop();
        ++pops_;
        if (occupancy_ != nullptr) add_to_occupancy(~std::uint64_t{0}); // minus one, modulo 2^64
    }
    std::size_t size() const { return queue_.size(); }
    std::size_t capacity() const { return queue_.capacity(); }
    std::size_t free_slots() const { return queue_.free_slots(); }
    // Packets popped so far: the head is the same packet for as long as this is unchanged (sends only append), so
    // a consumer may keep what it derived from the head until then (Crossbar keeps its route).
    std::uint64_t pops() const { return pops_; }
    // Whether queues sharing the occupancy counter may send or pop on several host threads at once.
    void set_concurrent(bool concurrent) { concurrent_ = concurrent; }

private:
    void add_to_occupancy(std::uint64_t delta) {
        if (concurrent_) occupancy_->fetch_add(delta, std::memory_order_relaxed);
        else occupancy_->store(occupancy_->load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
    }

    BoundedQueue<MemPacket> queue_;
    std::atomic<std::uint64_t>* occupancy_;
    std::uint64_t pops_ = 0;
    bool concurrent_ = false;
};

} // namespace gpuarch::mem
