// Fixed-size blocks for the IR's nodes and their reference counts. A compile builds and drops tens of
// thousands of nodes per kernel; taking them from a per-thread free list (refilled a slab at a time)
// instead of malloc removes most of the allocator's share of a compile. Slabs are kept for the
// process (a free list only ever holds blocks of its own size) and stay reachable from a global list,
// so leak checkers see them; a thread that ends hands its free blocks to the next thread that needs
// some (the app's worker threads come and go). Under AddressSanitizer every block is a plain
// allocation, so freed nodes are still caught when used.
#pragma once
#include <cstddef>
#include <mutex>
#include <new>
#include <vector>

namespace loupe {

#if defined(__SANITIZE_ADDRESS__)
#define LOUPE_BLOCK_POOL_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOUPE_BLOCK_POOL_PLAIN 1
#endif
#endif

template <size_t Size> class BlockPool {
  static_assert(Size >= sizeof(void*), "a block holds the free list's link");

public:
  static void* allocate() {
#ifdef LOUPE_BLOCK_POOL_PLAIN
    return ::operator new(Size);
#else
    Free*& head = free_list();
    if (!head) head = refill();
    Free* block = head;
    head = block->next;
    return block;
#endif
  }
  static void release(void* p) {
#ifdef LOUPE_BLOCK_POOL_PLAIN
    ::operator delete(p);
#else
    Free*& head = free_list();
    auto* block = static_cast<Free*>(p);
    block->next = head;
    head = block;
#endif
  }

  // Slabs taken from the system so far (0 under AddressSanitizer).
  static size_t slab_count() {
    Shared& s = shared();
    std::lock_guard lock(s.mutex);
    return s.slabs.size();
  }

private:
  struct Free {
    Free* next;
  };
  static constexpr size_t kBlock = (Size + alignof(std::max_align_t) - 1) / alignof(std::max_align_t) * alignof(std::max_align_t);
  static constexpr size_t kSlabBlocks = 512;

  // A thread's free blocks; at the thread's end they go to the shared store.
  struct ThreadList {
    Free* head = nullptr;
    ~ThreadList() {
      if (!head) return;
      Shared& s = shared();
      std::lock_guard lock(s.mutex);
      s.orphans.push_back(head);
      head = nullptr;  // a node dropped later (static destruction) starts a list of its own
    }
  };
  // Never destroyed: blocks outlive static destruction.
  struct Shared {
    std::mutex mutex;
    std::vector<char*> slabs;    // every slab, reachable for leak checkers
    std::vector<Free*> orphans;  // free lists of ended threads
  };
  static Shared& shared() {
    static auto* s = new Shared();
    return *s;
  }
  static Free*& free_list() {
    thread_local ThreadList list;
    return list.head;
  }
  // A free list for a thread that ran out: an ended thread's, else a new slab's.
  static Free* refill() {
    Shared& s = shared();
    char* slab;
    {
      std::lock_guard lock(s.mutex);
      if (!s.orphans.empty()) {
        Free* list = s.orphans.back();
        s.orphans.pop_back();
        return list;
      }
      slab = static_cast<char*>(::operator new(kBlock * kSlabBlocks));
      s.slabs.push_back(slab);
    }
    Free* head = nullptr;
    for (size_t i = kSlabBlocks; i-- > 0;) {
      auto* block = reinterpret_cast<Free*>(slab + i * kBlock);
      block->next = head;
      head = block;
    }
    return head;
  }
};

// A standard allocator over BlockPool for single objects (what std::shared_ptr asks for its control
// block); arrays go to operator new.
template <typename T> struct BlockAllocator {
  using value_type = T;
  BlockAllocator() = default;
  template <typename U> BlockAllocator(const BlockAllocator<U>&) {}
  T* allocate(size_t n) {
    if (n == 1) return static_cast<T*>(BlockPool<sizeof(T)>::allocate());
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n == 1) BlockPool<sizeof(T)>::release(p);
    else ::operator delete(p);
  }
  template <typename U> bool operator==(const BlockAllocator<U>&) const { return true; }
};

// A standard allocator for containers that are mostly short (a node's sources: one to four): arrays
// of up to 64 bytes come from BlockPools of 16, 32, 48 or 64 bytes, longer ones from operator new.
template <typename T> struct ShortArrayAllocator {
  using value_type = T;
  ShortArrayAllocator() = default;
  template <typename U> ShortArrayAllocator(const ShortArrayAllocator<U>&) {}
  T* allocate(size_t n) {
    switch ((n * sizeof(T) + 15) / 16) {
    case 1: return static_cast<T*>(BlockPool<16>::allocate());
    case 2: return static_cast<T*>(BlockPool<32>::allocate());
    case 3: return static_cast<T*>(BlockPool<48>::allocate());
    case 4: return static_cast<T*>(BlockPool<64>::allocate());
    default: return static_cast<T*>(::operator new(n * sizeof(T)));
    }
  }
  void deallocate(T* p, size_t n) {
    switch ((n * sizeof(T) + 15) / 16) {
    case 1: BlockPool<16>::release(p); break;
    case 2: BlockPool<32>::release(p); break;
    case 3: BlockPool<48>::release(p); break;
    case 4: BlockPool<64>::release(p); break;
    default: ::operator delete(p);
    }
  }
  template <typename U> bool operator==(const ShortArrayAllocator<U>&) const { return true; }
};

} // namespace loupe
