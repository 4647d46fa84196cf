#include "support/elf_symbols.h"

#include <cstring>
#include <elf.h>

#include "support/error.h"

namespace loupe {

namespace {

// A bounds-checked read of a T at `offset`: a crafted or truncated file is an error, never a wild read.
template <typename T>
T read_at(std::string_view image, uint64_t offset, const std::string& what, const char* part) {
  if (offset > image.size() || image.size() - offset < sizeof(T))
    throw Error(cat(what, ": ", part, " at byte ", offset, " lies outside the file (", image.size(), " bytes)"));
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

std::string string_at(std::string_view image, const Elf64_Shdr& strtab, uint32_t index, const std::string& what) {
  if (index >= strtab.sh_size || strtab.sh_offset > image.size() || image.size() - strtab.sh_offset < strtab.sh_size)
    throw Error(cat(what, ": a symbol name lies outside its string table"));
  std::string_view table = image.substr(strtab.sh_offset, strtab.sh_size);
  size_t end = table.find('\0', index);
  if (end == std::string_view::npos) throw Error(cat(what, ": a symbol name runs past its string table"));
  return std::string(table.substr(index, end - index));
}

} // namespace

std::vector<ElfFunction> elf_functions(std::string_view image, const std::string& what) {
  const auto header = read_at<Elf64_Ehdr>(image, 0, what, "the ELF header");
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) throw Error(cat(what, ": not an ELF file"));
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
    throw Error(cat(what, ": not a little-endian 64-bit ELF file"));
  if (header.e_shentsize != sizeof(Elf64_Shdr)) throw Error(cat(what, ": unexpected section header size ", header.e_shentsize));
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  for (size_t i = 0; i < sections.size(); i++)
    sections[i] = read_at<Elf64_Shdr>(image, header.e_shoff + i * sizeof(Elf64_Shdr), what, "a section header");
  const Elf64_Shdr* table = nullptr;
  for (uint32_t type : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (const Elf64_Shdr& s : sections)
      if (s.sh_type == type) table = &s;
    if (table) break;
  }
  std::vector<ElfFunction> out;
  if (!table) return out;  // stripped: no functions to name
  if (table->sh_link >= sections.size()) throw Error(cat(what, ": the symbol table's string table is missing"));
  const Elf64_Shdr& names = sections[table->sh_link];
  const uint64_t count = table->sh_entsize ? table->sh_size / table->sh_entsize : 0;
  for (uint64_t i = 0; i < count; i++) {
    auto sym = read_at<Elf64_Sym>(image, table->sh_offset + i * table->sh_entsize, what, "a symbol");
    if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF || sym.st_size == 0) continue;
    out.push_back({string_at(image, names, sym.st_name, what), sym.st_value, sym.st_size, sym.st_shndx,
                   ELF64_ST_BIND(sym.st_info) != STB_LOCAL});
  }
  return out;
}

} // namespace loupe
