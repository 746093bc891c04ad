// A zero-filled, aligned byte buffer with optional transparent huge pages (internal).
//
// The filter's packed table and the map's slot arrays live in one of these. Every
// buffer is aligned to kCacheLineBytes, so that a bucket whose size divides 64 never
// straddles two cache lines. With huge pages requested and a buffer of at least
// kHugePageBytes, the buffer is aligned to kHugePageBytes instead and, on Linux,
// madvise(MADV_HUGEPAGE) is applied to the whole 2 MiB pages inside it before the
// first write, so that the page faults of the zero fill can take huge pages: a random
// probe then costs one TLB entry per 2 MiB instead of per 4 KiB. madvise failing (THP
// disabled, an old kernel) is not an error: the buffer works with ordinary pages.
// Elsewhere than Linux the request only changes the alignment.
//
// Copies are deep and keep the huge-page request; a moved-from buffer is empty.
// Not thread-safe; const members may run concurrently with each other.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace cuckoo::detail {

class AlignedBuffer {
 public:
  static constexpr std::size_t kCacheLineBytes = 64;
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

  AlignedBuffer() = default;

  // `bytes` zero bytes. Throws std::bad_alloc; nothing is leaked.
  AlignedBuffer(std::size_t bytes, bool huge_pages) : huge_pages_(huge_pages) { allocate(bytes); }

  AlignedBuffer(const AlignedBuffer& other) : huge_pages_(other.huge_pages_) {
    allocate(other.size_);
    if (size_ != 0) std::memcpy(data_, other.data_, size_);
  }
  AlignedBuffer& operator=(const AlignedBuffer& other) {
    if (this != &other) {
      AlignedBuffer copy(other);
      swap(copy);
    }
    return *this;
  }
  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        alignment_(std::exchange(other.alignment_, kCacheLineBytes)),
        huge_pages_(other.huge_pages_) {}
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    if (this != &other) {
      AlignedBuffer moved(std::move(other));
      swap(moved);
    }
    return *this;
  }
  ~AlignedBuffer() { release(); }

  void swap(AlignedBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(alignment_, other.alignment_);
    std::swap(huge_pages_, other.huge_pages_);
  }

  std::uint8_t* data() noexcept { return data_; }
  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  // Whether huge pages were requested (not whether the kernel granted them).
  bool huge_pages() const noexcept { return huge_pages_; }
  // kHugePageBytes when the huge-page path was taken, else kCacheLineBytes.
  std::size_t alignment() const noexcept { return alignment_; }

  void fill_zero() noexcept {
    if (size_ != 0) std::memset(data_, 0, size_);
  }

 private:
  void allocate(std::size_t bytes) {
    if (bytes == 0) return;
    const bool huge = huge_pages_ && bytes >= kHugePageBytes;
    const std::size_t alignment = huge ? kHugePageBytes : kCacheLineBytes;
    void* p = ::operator new(bytes, std::align_val_t{alignment});
    data_ = static_cast<std::uint8_t*>(p);
    size_ = bytes;
    alignment_ = alignment;
    if (huge) advise_huge_pages();
    fill_zero();
  }

  // Advises the whole huge pages inside the buffer; the result is deliberately ignored.
  void advise_huge_pages() noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const std::size_t advised = size_ / kHugePageBytes * kHugePageBytes;
    if (advised != 0) static_cast<void>(::madvise(data_, advised, MADV_HUGEPAGE));
#endif
  }

  void release() noexcept {
    if (data_ != nullptr) ::operator delete(data_, std::align_val_t{alignment_});
    data_ = nullptr;
    size_ = 0;
  }

  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t alignment_ = kCacheLineBytes;
  bool huge_pages_ = false;
};

}  // namespace cuckoo::detail
