/* `nm -D lib.so | grep " T sym$"` without a process: read the dynamic
 * symbol table of an ELF image (32/64-bit, either byte order). Section
 * headers are used when present (.dynsym and its string table, so the
 * symbol's section flags give nm's letter); otherwise the PT_DYNAMIC
 * segment's DT_SYMTAB/DT_STRTAB with the count from DT_HASH or
 * DT_GNU_HASH. Every read is bounds-checked against the image. */
#include "engine/check/check_impl.h"
#include "engine/base/files.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct img {
	const unsigned char *b;
	size_t len;
	bool is64, big;
	bool bad; /* a read went out of bounds */
};

static uint64_t rd(struct img *m, uint64_t off, unsigned size)
{
	if (off > m->len || size > m->len - off) {
		m->bad = true;
		return 0;
	}
	const unsigned char *p = m->b + off;
	uint64_t v = 0;
	if (m->big)
		for (unsigned i = 0; i < size; i++)
			v = (v << 8) | p[i];
	else
		for (unsigned i = size; i-- > 0;)
			v = (v << 8) | p[i];
	return v;
}

static uint64_t r16(struct img *m, uint64_t off) { return rd(m, off, 2); }
static uint64_t r32(struct img *m, uint64_t off) { return rd(m, off, 4); }
static uint64_t rw(struct img *m, uint64_t off) { return rd(m, off, m->is64 ? 8 : 4); }

struct shdr {
	uint64_t type, flags, addr, offset, size, link, entsize;
};

static struct shdr section(struct img *m, uint64_t shoff, uint64_t shentsize, uint64_t i)
{
	struct shdr s;
	uint64_t o = shoff + i * shentsize;
	s.type = r32(m, o + 4);
	if (m->is64) {
		s.flags = rd(m, o + 8, 8);
		s.addr = rd(m, o + 16, 8);
		s.offset = rd(m, o + 24, 8);
		s.size = rd(m, o + 32, 8);
		s.link = r32(m, o + 40);
		s.entsize = rd(m, o + 56, 8);
	} else {
		s.flags = r32(m, o + 8);
		s.addr = r32(m, o + 12);
		s.offset = r32(m, o + 16);
		s.size = r32(m, o + 20);
		s.link = r32(m, o + 24);
		s.entsize = r32(m, o + 36);
	}
	return s;
}

struct sym {
	uint64_t name;
	unsigned info, other, shndx;
};

static struct sym symbol(struct img *m, uint64_t off)
{
	struct sym s;
	s.name = r32(m, off);
	if (m->is64) {
		s.info = (unsigned)rd(m, off + 4, 1);
		s.other = (unsigned)rd(m, off + 5, 1);
		s.shndx = (unsigned)r16(m, off + 6);
	} else {
		s.info = (unsigned)rd(m, off + 12, 1);
		s.other = (unsigned)rd(m, off + 13, 1);
		s.shndx = (unsigned)r16(m, off + 14);
	}
	return s;
}

/* Compare the NUL-terminated string at strtab[off] (bounded by the table
 * and the image) with name. */
static bool name_at(struct img *m, uint64_t strtab, uint64_t strsz, uint64_t off,
		    const char *name)
{
	if (off >= strsz || strtab > m->len || strsz > m->len - strtab)
		return false;
	const char *s = (const char *)m->b + strtab + off;
	size_t room = (size_t)(strsz - off);
	size_t n = strlen(name);
	return n < room && memcmp(s, name, n) == 0 && s[n] == '\0';
}

/* nm's letter for a symbol; sec_flags/sec_type of its section, if known. */
static char nm_letter(const struct sym *s, bool have_sec, uint64_t sec_flags,
		      uint64_t sec_type)
{
	unsigned bind = s->info >> 4, type = s->info & 0xf;
	if (s->shndx == SHN_UNDEF)
		return bind == STB_WEAK ? (type == STT_OBJECT ? 'v' : 'w') : 'U';
	if (type == STT_GNU_IFUNC)
		return 'i';
	if (bind == STB_WEAK)
		return type == STT_OBJECT ? 'V' : 'W';
	if (bind == STB_GNU_UNIQUE)
		return 'u';
	char c;
	if (s->shndx == SHN_ABS)
		c = 'a';
	else if (s->shndx == SHN_COMMON)
		c = 'c';
	else if (!have_sec)
		c = type == STT_FUNC ? 't' : (type == STT_OBJECT ? 'd' : '?');
	else if (sec_flags & SHF_EXECINSTR)
		c = 't';
	else if (sec_type == SHT_NOBITS)
		c = 'b';
	else if (sec_flags & SHF_WRITE)
		c = 'd';
	else
		c = 'r';
	if (bind == STB_GLOBAL && c != '?')
		c = (char)(c - 'a' + 'A');
	return c;
}

static int by_sections(struct img *m, const char *name, char *type, uint64_t shoff,
		       uint64_t shentsize, uint64_t shnum)
{
	if (shentsize < (m->is64 ? 64u : 40u))
		return -1;
	if (shnum == 0) /* extended numbering: the count is in section 0 */
		shnum = section(m, shoff, shentsize, 0).size;
	if (shnum > m->len / shentsize + 1 || m->bad)
		return -1;
	bool any = false;
	for (uint64_t i = 0; i < shnum && !m->bad; i++) {
		struct shdr ds = section(m, shoff, shentsize, i);
		if (ds.type != SHT_DYNSYM)
			continue;
		any = true;
		if (ds.link >= shnum)
			continue;
		struct shdr str = section(m, shoff, shentsize, ds.link);
		uint64_t ent = ds.entsize ? ds.entsize : (m->is64 ? 24u : 16u);
		if (ent < (m->is64 ? 24u : 16u) || ds.size > m->len)
			continue;
		for (uint64_t k = 1; k < ds.size / ent && !m->bad; k++) {
			struct sym s = symbol(m, ds.offset + k * ent);
			if (!name_at(m, str.offset, str.size, s.name, name))
				continue;
			bool have = s.shndx != SHN_UNDEF && s.shndx < SHN_LORESERVE && s.shndx < shnum;
			struct shdr sec = have ? section(m, shoff, shentsize, s.shndx) : ds;
			*type = nm_letter(&s, have, sec.flags, sec.type);
			return 1;
		}
	}
	if (m->bad)
		return -1;
	return any ? 0 : -2;
}

/* File offset of a virtual address through the PT_LOAD segments. */
static bool vaddr_to_off(struct img *m, uint64_t phoff, uint64_t phentsize, uint64_t phnum,
			 uint64_t va, uint64_t *off)
{
	for (uint64_t i = 0; i < phnum && !m->bad; i++) {
		uint64_t o = phoff + i * phentsize;
		if (r32(m, o) != PT_LOAD)
			continue;
		uint64_t p_off = m->is64 ? rd(m, o + 8, 8) : r32(m, o + 4);
		uint64_t p_va = m->is64 ? rd(m, o + 16, 8) : r32(m, o + 8);
		uint64_t p_fsz = m->is64 ? rd(m, o + 32, 8) : r32(m, o + 16);
		if (va >= p_va && va - p_va < p_fsz) {
			*off = p_off + (va - p_va);
			return true;
		}
	}
	return false;
}

/* Symbol count from DT_GNU_HASH: one past the highest chain end. */
static uint64_t gnu_hash_count(struct img *m, uint64_t h)
{
	uint64_t nbuckets = r32(m, h), symoffset = r32(m, h + 4), bloom = r32(m, h + 8);
	uint64_t buckets = h + 16 + bloom * (m->is64 ? 8 : 4);
	uint64_t last = 0;
	if (nbuckets > m->len / 4)
		return 0;
	for (uint64_t i = 0; i < nbuckets && !m->bad; i++) {
		uint64_t b = r32(m, buckets + 4 * i);
		if (b > last)
			last = b;
	}
	if (last < symoffset)
		return symoffset;
	uint64_t chains = buckets + 4 * nbuckets;
	for (uint64_t guard = 0; !m->bad && guard < m->len; guard++) {
		if (r32(m, chains + 4 * (last - symoffset)) & 1)
			return last + 1;
		last++;
	}
	return 0;
}

static int by_dynamic(struct img *m, const char *name, char *type, uint64_t phoff,
		      uint64_t phentsize, uint64_t phnum)
{
	if (phentsize < (m->is64 ? 56u : 32u) || phnum > m->len / phentsize)
		return -1;
	uint64_t dyn = 0, dynsz = 0;
	for (uint64_t i = 0; i < phnum && !m->bad; i++) {
		uint64_t o = phoff + i * phentsize;
		if (r32(m, o) == PT_DYNAMIC) {
			dyn = m->is64 ? rd(m, o + 8, 8) : r32(m, o + 4);
			dynsz = m->is64 ? rd(m, o + 32, 8) : r32(m, o + 16);
		}
	}
	if (!dynsz || m->bad)
		return -1;
	uint64_t symtab = 0, strtab = 0, strsz = 0, syment = 0, hash = 0, gnuhash = 0;
	unsigned w = m->is64 ? 8 : 4;
	for (uint64_t o = dyn; o + 2 * w <= dyn + dynsz && !m->bad; o += 2 * w) {
		uint64_t tag = rw(m, o), val = rw(m, o + w);
		if (tag == DT_NULL)
			break;
		if (tag == DT_SYMTAB) symtab = val;
		else if (tag == DT_STRTAB) strtab = val;
		else if (tag == DT_STRSZ) strsz = val;
		else if (tag == DT_SYMENT) syment = val;
		else if (tag == DT_HASH) hash = val;
		else if (tag == DT_GNU_HASH) gnuhash = val;
	}
	uint64_t symoff, stroff, hoff, count = 0;
	if (!symtab || !strtab ||
	    !vaddr_to_off(m, phoff, phentsize, phnum, symtab, &symoff) ||
	    !vaddr_to_off(m, phoff, phentsize, phnum, strtab, &stroff))
		return -1;
	if (hash && vaddr_to_off(m, phoff, phentsize, phnum, hash, &hoff))
		count = r32(m, hoff + 4);
	else if (gnuhash && vaddr_to_off(m, phoff, phentsize, phnum, gnuhash, &hoff))
		count = gnu_hash_count(m, hoff);
	if (!syment)
		syment = m->is64 ? 24 : 16;
	if (m->bad || syment < (m->is64 ? 24u : 16u) || count > m->len / syment)
		return -1;
	for (uint64_t k = 1; k < count && !m->bad; k++) {
		struct sym s = symbol(m, symoff + k * syment);
		if (name_at(m, stroff, strsz, s.name, name)) {
			*type = nm_letter(&s, false, 0, 0);
			return 1;
		}
	}
	return m->bad ? -1 : 0;
}

int elf_dynsym_lookup(const unsigned char *buf, size_t len, const char *name, char *type,
		      struct tp_err *err)
{
	*type = 0;
	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0) {
		tp_err_set(err, TP_EXIT_FAILED, "not an ELF file");
		return -1;
	}
	struct img m = {buf, len, buf[EI_CLASS] == ELFCLASS64, buf[EI_DATA] == ELFDATA2MSB, false};
	if ((buf[EI_CLASS] != ELFCLASS32 && buf[EI_CLASS] != ELFCLASS64) ||
	    (buf[EI_DATA] != ELFDATA2LSB && buf[EI_DATA] != ELFDATA2MSB)) {
		tp_err_set(err, TP_EXIT_FAILED, "unknown ELF class or byte order");
		return -1;
	}
	uint64_t phoff, shoff, phentsize, phnum, shentsize, shnum;
	if (m.is64) {
		phoff = rd(&m, 32, 8);
		shoff = rd(&m, 40, 8);
		phentsize = r16(&m, 54);
		phnum = r16(&m, 56);
		shentsize = r16(&m, 58);
		shnum = r16(&m, 60);
	} else {
		phoff = r32(&m, 28);
		shoff = r32(&m, 32);
		phentsize = r16(&m, 42);
		phnum = r16(&m, 44);
		shentsize = r16(&m, 46);
		shnum = r16(&m, 48);
	}
	if (m.bad) { /* a header cut short reads as zeros: no "no tables" from it */
		tp_err_set(err, TP_EXIT_FAILED, "a truncated ELF header");
		return -1;
	}
	int rc = -2;
	if (shoff && !m.bad)
		rc = by_sections(&m, name, type, shoff, shentsize, shnum);
	if (rc == -2 || (rc == -1 && phoff)) {
		m.bad = false;
		rc = phoff ? by_dynamic(&m, name, type, phoff, phentsize, phnum) : -1;
		if (rc == -1 && shoff == 0 && phoff == 0)
			rc = 0;
	}
	if (rc < 0) {
		tp_err_set(err, TP_EXIT_FAILED, "no readable dynamic symbol table");
		return -1;
	}
	return rc;
}

int elf_dynsym_lookup_file(const char *path, const char *name, char *type,
			   struct tp_err *err)
{
	/* a FIFO in place of the library is refused, not waited on */
	int fd = file_open_read(path, 0, err);
	if (fd < 0) {
		if (err)
			err->code = TP_EXIT_FAILED;
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		tp_err_set(err, TP_EXIT_FAILED, "%s: not a regular, non-empty file", path);
		return -1;
	}
	/* mmap: a release cdylib can be tens of MB; only the tables are read */
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		tp_err_set(err, TP_EXIT_FAILED, "%s: cannot map: %s", path, strerror(errno));
		return -1;
	}
	struct tp_err e2 = {0};
	int rc = elf_dynsym_lookup(p, (size_t)st.st_size, name, type, &e2);
	munmap(p, (size_t)st.st_size);
	if (rc < 0)
		tp_err_set(err, TP_EXIT_FAILED, "%s: %s", path, e2.msg);
	return rc;
}
