// A zero-filled (or, on request, uninitialized) aligned byte buffer with optional
// transparent huge pages (internal).
//
// The filter's packed table and the map's slot arrays live in one of these. Every
// buffer is aligned to kCacheLineBytes, so that a bucket whose size divides 64 never
// straddles two cache lines. With huge pages requested and a buffer of at least
// kHugePageBytes, the buffer is aligned to kHugePageBytes instead and, on Linux,
// madvise(MADV_HUGEPAGE) is applied to the whole 2 MiB pages inside it before the
// first write, so that the page faults of the first writes can take huge pages: a random
// probe then costs one TLB entry per 2 MiB instead of per 4 KiB. madvise failing (THP
// disabled, an old kernel) is not an error: the buffer works with ordinary pages.
// Elsewhere than Linux the request only changes the alignment.
//
// Allocators. BasicAlignedBuffer<Alloc> takes its memory from Alloc rebound to a
// 64-byte aligned cache-line type, so an allocator only has to honour that type's
// alignment (std::allocator and std::pmr's do). Huge pages need the 2 MiB alignment that
// only operator new with align_val_t gives: they are used with std::allocator alone; a
// buffer with any other allocator ignores the request (huge_pages() still reports it,
// alignment() says kCacheLineBytes). AlignedBuffer is the std::allocator buffer.
//
// Propagation follows std::allocator_traits of the rebound allocator, as the standard
// containers do: a copy constructs its allocator with
// select_on_container_copy_construction; copy and move assignment and swap bring the
// other buffer's allocator along only when propagate_on_container_copy_assignment /
// _move_assignment / _swap says so, and otherwise keep this buffer's. So a
// non-propagating allocator that cannot even be assigned (std::pmr::polymorphic_allocator)
// works. A move assignment between unequal, non-propagating allocators copies the bytes
// into this buffer's allocator's memory; swap between them is not allowed (asserted in
// debug builds, as for the standard containers, whose swap is undefined then). take()
// is the primitive the containers above build their own assignments from.
//
// Copies are deep and keep the huge-page request; a moved-from buffer is empty.
// Not thread-safe; const members may run concurrently with each other.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace cuckoo::detail {

// The unit of allocation: one cache line, so that every allocation is line aligned.
struct alignas(64) CacheLine {
  std::uint8_t bytes[64];
};

template <class Alloc>
class BasicAlignedBuffer {
  using LineAlloc = typename std::allocator_traits<Alloc>::template rebind_alloc<CacheLine>;
  using LineTraits = std::allocator_traits<LineAlloc>;

 public:
  using allocator_type = Alloc;
  static constexpr std::size_t kCacheLineBytes = sizeof(CacheLine);
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
  // Only std::allocator can give the huge-page alignment (see the file comment).
  static constexpr bool kHugePagesPossible = std::is_same_v<LineAlloc, std::allocator<CacheLine>>;
  static constexpr bool kPropagateOnCopy =
      LineTraits::propagate_on_container_copy_assignment::value;
  static constexpr bool kPropagateOnMove =
      LineTraits::propagate_on_container_move_assignment::value;
  static constexpr bool kPropagateOnSwap = LineTraits::propagate_on_container_swap::value;
  static constexpr bool kAlwaysEqual = LineTraits::is_always_equal::value;

  BasicAlignedBuffer() = default;
  explicit BasicAlignedBuffer(const Alloc& alloc) : alloc_(alloc) {}

  // `bytes` zero bytes. Throws std::bad_alloc (or what the allocator throws); nothing is
  // leaked.
  BasicAlignedBuffer(std::size_t bytes, bool huge_pages, const Alloc& alloc = Alloc())
      : alloc_(alloc), huge_pages_(huge_pages) {
    allocate(bytes);
    fill_zero();
  }
  // `bytes` bytes of unspecified value (memory the owner writes before it reads any of
  // it: the map's item storage). Skipping the zero fill saves a write of every byte: the
  // pages are first touched where the owner writes them.
  struct Uninitialized {};
  BasicAlignedBuffer(std::size_t bytes, bool huge_pages, const Alloc& alloc, Uninitialized)
      : alloc_(alloc), huge_pages_(huge_pages) {
    allocate(bytes);
  }

  // A deep copy with the allocator `alloc`.
  BasicAlignedBuffer(const BasicAlignedBuffer& other, const Alloc& alloc)
      : alloc_(alloc), huge_pages_(other.huge_pages_) {
    allocate(other.size_);
    if (size_ != 0) std::memcpy(data_, other.data_, size_);
  }
  BasicAlignedBuffer(const BasicAlignedBuffer& other)
      : BasicAlignedBuffer(other, std::allocator_traits<Alloc>::select_on_container_copy_construction(
                                      other.allocator())) {}
  // A deep copy of other into memory of this buffer's allocator, or of other's (which
  // then replaces this one) when propagate_on_container_copy_assignment. Throws what the
  // allocator throws, leaving this buffer unchanged.
  BasicAlignedBuffer& operator=(const BasicAlignedBuffer& other) {
    if (this != &other) {
      if constexpr (kPropagateOnCopy) {
        BasicAlignedBuffer copy(other, other.allocator());
        take<true>(copy);
      } else {
        BasicAlignedBuffer copy(other, allocator());
        take<false>(copy);
      }
    }
    return *this;
  }
  BasicAlignedBuffer(BasicAlignedBuffer&& other) noexcept
      : alloc_(std::move(other.alloc_)),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        alignment_(std::exchange(other.alignment_, kCacheLineBytes)),
        huge_pages_(other.huge_pages_) {}
  // Takes other's bytes, with other's allocator when
  // propagate_on_container_move_assignment; keeping this allocator, when the two compare
  // equal; otherwise copies the bytes into memory of this buffer's allocator (which may
  // throw, leaving both buffers unchanged). other ends empty.
  BasicAlignedBuffer& operator=(BasicAlignedBuffer&& other) noexcept(kPropagateOnMove ||
                                                                     kAlwaysEqual) {
    if (this != &other) {
      if constexpr (kPropagateOnMove) {
        take<true>(other);
      } else if (kAlwaysEqual || alloc_ == other.alloc_) {
        take<false>(other);
      } else {
        BasicAlignedBuffer copy(other, allocator());
        take<false>(copy);
        other.release();
      }
    }
    return *this;
  }
  ~BasicAlignedBuffer() { release(); }

  // Exchanges the bytes; the allocators too only when propagate_on_container_swap.
  // REQUIRES: that, or allocators that compare equal (asserted in debug builds): each
  // buffer's memory must go back to an allocator that can free it.
  void swap(BasicAlignedBuffer& other) noexcept {
    if constexpr (kPropagateOnSwap) {
      using std::swap;
      swap(alloc_, other.alloc_);
    } else {
      assert(kAlwaysEqual || alloc_ == other.alloc_);
    }
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(alignment_, other.alignment_);
    std::swap(huge_pages_, other.huge_pages_);
  }

  // Frees this buffer's bytes and takes other's (with its huge-page request), leaving
  // other empty; takes other's allocator too when TakeAllocator (Alloc must then be
  // copy assignable), else keeps this one. REQUIRES: TakeAllocator, or allocators that
  // compare equal (asserted in debug builds).
  template <bool TakeAllocator>
  void take(BasicAlignedBuffer& other) noexcept {
    assert(TakeAllocator || kAlwaysEqual || alloc_ == other.alloc_);
    if (this == &other) return;
    release();
    if constexpr (TakeAllocator) alloc_ = other.alloc_;
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    alignment_ = std::exchange(other.alignment_, kCacheLineBytes);
    huge_pages_ = other.huge_pages_;
  }

  Alloc allocator() const noexcept { return Alloc(alloc_); }
  std::uint8_t* data() noexcept { return data_; }
  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  // Whether huge pages were requested (not whether the kernel granted them).
  bool huge_pages() const noexcept { return huge_pages_; }
  // kHugePageBytes when the huge-page path was taken, else kCacheLineBytes.
  std::size_t alignment() const noexcept { return alignment_; }
  // Bytes taken from the allocator (size() rounded up to whole cache lines).
  std::size_t allocated_bytes() const noexcept { return lines_for(size_) * kCacheLineBytes; }

  void fill_zero() noexcept {
    if (size_ != 0) std::memset(data_, 0, size_);
  }

 private:
  static constexpr std::size_t lines_for(std::size_t bytes) noexcept {
    return bytes / kCacheLineBytes + (bytes % kCacheLineBytes != 0 ? 1 : 0);
  }

  void allocate(std::size_t bytes) {
    if (bytes == 0) return;
    const bool huge = kHugePagesPossible && huge_pages_ && bytes >= kHugePageBytes;
    if constexpr (kHugePagesPossible) {
      const std::size_t alignment = huge ? kHugePageBytes : kCacheLineBytes;
      data_ = static_cast<std::uint8_t*>(::operator new(bytes, std::align_val_t{alignment}));
      alignment_ = alignment;
    } else {
      CacheLine* lines = LineTraits::allocate(alloc_, lines_for(bytes));
      data_ = reinterpret_cast<std::uint8_t*>(lines);
      alignment_ = kCacheLineBytes;
    }
    size_ = bytes;
    if (huge) advise_huge_pages();
  }

  // Advises the whole huge pages inside the buffer; the result is deliberately ignored.
  void advise_huge_pages() noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const std::size_t advised = size_ / kHugePageBytes * kHugePageBytes;
    if (advised != 0) static_cast<void>(::madvise(data_, advised, MADV_HUGEPAGE));
#endif
  }

  void release() noexcept {
    if (data_ != nullptr) {
      if constexpr (kHugePagesPossible) {
        ::operator delete(data_, std::align_val_t{alignment_});
      } else {
        LineTraits::deallocate(alloc_, reinterpret_cast<CacheLine*>(data_), lines_for(size_));
      }
    }
    data_ = nullptr;
    size_ = 0;
  }

  [[no_unique_address]] LineAlloc alloc_{};
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t alignment_ = kCacheLineBytes;
  bool huge_pages_ = false;
};

using AlignedBuffer = BasicAlignedBuffer<std::allocator<std::uint8_t>>;

}  // namespace cuckoo::detail
