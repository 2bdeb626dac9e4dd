/* The per-file loops of a cache measurement, in C: an optional accelerator.
 *
 * Why: a cache scan costs one lstat per file and, over the limit, one read and parse per kernel
 * json. In Python each of those costs ~2 us of interpreter work around ~1 us of system call (a
 * stat_result of 20 fields, orjson's dict of a 1 KiB json), so a pure-Python scan of 200,000
 * files stays at 2.5x `du -sb` or more however the work is split (docs/architecture.md,
 * "The C loops"). These functions do the same system calls, and the arithmetic of the
 * candidates' order, with none of that work around them, and the prediction's steps make no
 * Python object per plain group (cleanup.GroupStore). They decide nothing about CANN: the rules'
 * numbers and names come from the Python callers, and the readers answer only the plain case and
 * leave everything else to the Python code, which handles it exactly as it does without this
 * module (app/opcache/scanner.py read_chunk and ordered_candidates, app/opcache/cleanup.py
 * _Steps and _resolve_folder). tests/app/opcache/test_native.py checks that both paths give the
 * same answers.
 *
 * While the interpreter lock is released (a chunk's lstat calls; read_groups' threads), only C
 * data is touched: the names' UTF-8 buffers, which the lists the caller passed hold, and buffers
 * held with PyObject_GetBuffer (the store's columns cannot be resized meanwhile).
 *
 * Built by setuptools when a C compiler is there (optional: without one, the pure-Python paths
 * run, only slower).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <sched.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- plain_chunk ---------------------------------------------------------------------------- */

/* The longest name (or path below a SoC dir) the C loops handle; a longer one is left to Python. */
#define MAX_NAME 4096

/* plain_chunk(dir_fd, names, jsons, uid, bin_suffix) -> tuple | None
 *
 * lstat (fstatat, AT_SYMLINK_NOFOLLOW) every name of `names` in the directory `dir_fd`, the
 * interpreter lock released for the whole chunk. When every one is a regular file with one link,
 * returns
 *   (size_sum, blocks_sum, not_mine, other_uids, json_names, json_atimes, json_sizes, json_marks,
 *    json_bins)
 * where not_mine counts the files whose owner is not `uid`, other_uids is a tuple of those owners
 * (both 0 and empty when `uid` is negative: not asked), and the jsons are the names `jsons`
 * selects - a bytes mask (one byte per name, not 0: a json) or a str (the names ending with it):
 * json_names (a list of them, in order), json_atimes (bytes of C doubles, st_atime as Python
 * computes it), json_sizes (bytes of int64 st_size), json_marks (bytes, 1 when the access time is
 * later than both the change and the modification time, in nanoseconds), and json_bins (bytes of
 * int64: the size of "<the json's name less its last 5 bytes><bin_suffix>" when the chunk holds
 * it, else -1; None when `bin_suffix` is None).
 * Otherwise (a failed lstat, a directory, a symlink, a hard link, a name that is not UTF-8 or
 * holds a NUL, anything else) returns None.
 */

/* A name's hash (FNV-1a) for the chunk's table of names. */
static size_t name_hash(const char *name, size_t len) {
    size_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
    return h;
}

/* What plain_chunk keeps of one lstat. */
typedef struct {
    long long size, blocks, atime_ns, mtime_ns, ctime_ns;
    double atime;
    unsigned int uid;
    int ok; /* a regular file with one link */
} Lstat;

/* json_bins: each json's "<stem><suffix>" looked up in a table of the chunk's names. */
static PyObject *json_bins(const char **texts, const Py_ssize_t *lengths, const Lstat *sts, const char *is_json,
                           Py_ssize_t count, Py_ssize_t jsons, const char *suffix, Py_ssize_t suffix_len) {
    size_t slots = 16;
    while (slots < 2 * (size_t)count)
        slots *= 2;
    Py_ssize_t *table = PyMem_Malloc(slots * sizeof(Py_ssize_t));
    PyObject *bins = table ? PyBytes_FromStringAndSize(NULL, jsons * (Py_ssize_t)sizeof(long long)) : NULL;
    if (!bins) {
        PyMem_Free(table);
        return PyErr_Occurred() ? NULL : PyErr_NoMemory();
    }
    for (size_t k = 0; k < slots; k++)
        table[k] = -1;
    for (Py_ssize_t i = 0; i < count; i++) {
        size_t k = name_hash(texts[i], (size_t)lengths[i]) & (slots - 1);
        while (table[k] >= 0)
            k = (k + 1) & (slots - 1);
        table[k] = i;
    }
    long long *bin_out = (long long *)PyBytes_AS_STRING(bins);
    char wanted[MAX_NAME];
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!is_json[i])
            continue;
        long long found = -1;
        Py_ssize_t stem = lengths[i] - 5;
        if (stem > 0 && (size_t)stem + (size_t)suffix_len < sizeof wanted) {
            memcpy(wanted, texts[i], (size_t)stem);
            memcpy(wanted + stem, suffix, (size_t)suffix_len);
            size_t wanted_len = (size_t)stem + (size_t)suffix_len;
            for (size_t k = name_hash(wanted, wanted_len) & (slots - 1); table[k] >= 0; k = (k + 1) & (slots - 1))
                if ((size_t)lengths[table[k]] == wanted_len && memcmp(texts[table[k]], wanted, wanted_len) == 0) {
                    found = sts[table[k]].size;
                    break;
                }
        }
        *bin_out++ = found;
    }
    PyMem_Free(table);
    return bins;
}

static PyObject *plain_chunk(PyObject *self, PyObject *args) {
    (void)self;
    int dir_fd;
    PyObject *names, *jsons_arg, *bin_suffix;
    long long uid;
    if (!PyArg_ParseTuple(args, "iO!OLO", &dir_fd, &PyList_Type, &names, &jsons_arg, &uid, &bin_suffix))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(names), json_suffix_len = 0, bin_suffix_len = 0;
    const char *json_suffix = NULL, *suffix = NULL;
    Py_buffer mask = {0};
    int have_mask = 0;
    if (PyUnicode_Check(jsons_arg)) {
        if (!(json_suffix = PyUnicode_AsUTF8AndSize(jsons_arg, &json_suffix_len)))
            return NULL;
    } else {
        if (PyObject_GetBuffer(jsons_arg, &mask, PyBUF_SIMPLE) < 0)
            return NULL;
        have_mask = 1;
        if (mask.len != count) {
            PyBuffer_Release(&mask);
            PyErr_SetString(PyExc_ValueError, "json_mask must have one byte per name");
            return NULL;
        }
    }
    if (bin_suffix != Py_None) {
        if (!PyUnicode_Check(bin_suffix)) {
            if (have_mask)
                PyBuffer_Release(&mask);
            PyErr_SetString(PyExc_TypeError, "bin_suffix must be a str or None");
            return NULL;
        }
        if (!(suffix = PyUnicode_AsUTF8AndSize(bin_suffix, &bin_suffix_len))) {
            if (have_mask)
                PyBuffer_Release(&mask);
            return NULL;
        }
    }
    PyObject *result = NULL, *atimes = NULL, *sizes = NULL, *marks = NULL, *others = NULL, *owners = NULL;
    PyObject *json_names = NULL, *bins = NULL;
    const char **texts = PyMem_Calloc((size_t)count + 1, sizeof(char *));
    Py_ssize_t *lengths = PyMem_Calloc((size_t)count + 1, sizeof(Py_ssize_t));
    char *is_json = PyMem_Calloc((size_t)count + 1, 1);
    Lstat *sts = PyMem_Calloc((size_t)count + 1, sizeof(Lstat));
    if (!texts || !lengths || !is_json || !sts) {
        PyErr_NoMemory();
        goto done;
    }
    /* The names as C strings (held by `names`, which the caller keeps), and which are jsons. */
    int plain = 1;
    Py_ssize_t jsons = 0;
    for (Py_ssize_t i = 0; i < count && plain; i++) {
        PyObject *item = PyList_GET_ITEM(names, i);
        const char *name = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &lengths[i]) : NULL;
        if (!name) { /* not a str, or no valid UTF-8 (surrogateescape): the Python path */
            PyErr_Clear();
            plain = 0;
            break;
        }
        if ((Py_ssize_t)strlen(name) != lengths[i]) {
            plain = 0;
            break;
        }
        texts[i] = name;
        if (have_mask)
            is_json[i] = ((const char *)mask.buf)[i] != 0;
        else
            is_json[i] = lengths[i] >= json_suffix_len &&
                         memcmp(name + lengths[i] - json_suffix_len, json_suffix, (size_t)json_suffix_len) == 0;
        jsons += is_json[i];
    }
    if (plain) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < count; i++) {
            struct stat st;
            if (fstatat(dir_fd, texts[i], &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
                plain = 0;
                break;
            }
            Lstat *out = &sts[i];
            out->ok = 1;
            out->size = (long long)st.st_size;
            out->blocks = (long long)st.st_blocks;
            out->uid = (unsigned int)st.st_uid;
            /* Python's st_atime: seconds + nanoseconds * 1e-9, as a double (posixmodule.c fill_time). */
            out->atime = (double)st.st_atim.tv_sec + (double)st.st_atim.tv_nsec * 1e-9;
            out->atime_ns = (long long)st.st_atim.tv_sec * 1000000000LL + st.st_atim.tv_nsec;
            out->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
            out->ctime_ns = (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
        }
        Py_END_ALLOW_THREADS
    }
    if (!plain) {
        Py_INCREF(Py_None);
        result = Py_None;
        goto done;
    }
    atimes = PyBytes_FromStringAndSize(NULL, jsons * (Py_ssize_t)sizeof(double));
    sizes = PyBytes_FromStringAndSize(NULL, jsons * (Py_ssize_t)sizeof(long long));
    marks = PyBytes_FromStringAndSize(NULL, jsons);
    others = PyList_New(0);
    json_names = PyList_New(jsons);
    if (!atimes || !sizes || !marks || !others || !json_names)
        goto done;
    double *atime_out = (double *)PyBytes_AS_STRING(atimes);
    long long *size_out = (long long *)PyBytes_AS_STRING(sizes);
    char *mark_out = PyBytes_AS_STRING(marks);
    long long size_sum = 0, blocks_sum = 0, not_mine = 0;
    Py_ssize_t at = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        const Lstat *st = &sts[i];
        size_sum += st->size;
        blocks_sum += st->blocks;
        if (uid >= 0 && (long long)st->uid != uid) {
            not_mine++;
            PyObject *owner = PyLong_FromUnsignedLong((unsigned long)st->uid);
            if (!owner)
                goto done;
            int known = PySequence_Contains(others, owner);
            if (known == 0 && PyList_Append(others, owner) < 0)
                known = -1;
            Py_DECREF(owner);
            if (known < 0)
                goto done;
        }
        if (is_json[i]) {
            PyObject *name = PyList_GET_ITEM(names, i);
            Py_INCREF(name);
            PyList_SET_ITEM(json_names, at++, name);
            *atime_out++ = st->atime;
            *size_out++ = st->size;
            *mark_out++ = (char)(st->atime_ns > st->mtime_ns && st->atime_ns > st->ctime_ns);
        }
    }
    if (suffix && !(bins = json_bins(texts, lengths, sts, is_json, count, jsons, suffix, bin_suffix_len)))
        goto done;
    if (!bins) {
        Py_INCREF(Py_None);
        bins = Py_None;
    }
    if (!(owners = PyList_AsTuple(others)))
        goto done;
    result = Py_BuildValue("(LLLOOOOOO)", size_sum, blocks_sum, not_mine, owners, json_names, atimes, sizes, marks,
                           bins);
done:
    if (have_mask)
        PyBuffer_Release(&mask);
    PyMem_Free(texts);
    PyMem_Free(lengths);
    PyMem_Free(is_json);
    PyMem_Free(sts);
    Py_XDECREF(atimes);
    Py_XDECREF(sizes);
    Py_XDECREF(marks);
    Py_XDECREF(others);
    Py_XDECREF(owners);
    Py_XDECREF(json_names);
    Py_XDECREF(bins);
    return result;
}

/* ---- the kernel json check ------------------------------------------------------------------ */

/* A conservative JSON check: accepts only text that nlohmann::json's strict parse accepts too
 * (RFC 8259: ASCII only here, no \u escape of a UTF-16 surrogate, numbers that stay finite as a
 * double, nesting no deeper than MAX_DEPTH), and rejects everything else, some valid JSON
 * included. A rejected json goes the Python way (orjson with CANN's rules). */
#define MAX_DEPTH 512
#define MAX_MAGNITUDE 300 /* 10^300 < DBL_MAX: a number of at most 300 integer digits, exponent included, is finite */

typedef struct {
    const unsigned char *p, *end;
    int depth;
} Cursor;

static inline void skip_space(Cursor *s) {
    /* One comparison for the usual byte, which is no space (every space is <= ' '). */
    while (s->p < s->end && *s->p <= ' ' && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static int hex_value(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A string at s->p (the opening quote). Sets *start and *len to its raw content and *escaped when
 * it holds a backslash. Returns 0 when accepted. */
static inline __attribute__((always_inline)) int scan_string(Cursor *s, const unsigned char **start, Py_ssize_t *len,
                                                          int *escaped) {
    s->p++;
    *start = s->p;
    *escaped = 0;
    for (;;) {
#if defined(__SSE2__)
        /* 16 bytes at a time up to the first that is not plain printable ASCII: a quote, a
         * backslash, a control character or a byte >= 0x80 (negative as a signed char). */
        const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
        while (s->end - s->p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)s->p);
            __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                           _mm_cmplt_epi8(v, space));
            int mask = _mm_movemask_epi8(special);
            if (mask) {
                s->p += __builtin_ctz((unsigned)mask);
                break;
            }
            s->p += 16;
        }
#endif
        if (s->p >= s->end)
            return -1;
        unsigned char c = *s->p;
        if (c == '"') {
            *len = s->p - *start;
            s->p++;
            return 0;
        }
        if (c < 0x20 || c >= 0x80)
            return -1;
        if (c == '\\') {
            *escaped = 1;
            if (s->end - s->p < 2)
                return -1;
            unsigned char e = s->p[1];
            if (e == 'u') {
                if (s->end - s->p < 6)
                    return -1;
                int code = 0;
                for (int k = 2; k < 6; k++) {
                    int h = hex_value(s->p[k]);
                    if (h < 0)
                        return -1;
                    code = code * 16 + h;
                }
                if (code >= 0xD800 && code <= 0xDFFF)
                    return -1; /* surrogates: nlohmann's pairing rules, left to the Python way */
                s->p += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == 0)
                return -1;
            s->p += 2;
            continue;
        }
        s->p++;
    }
}

static int scan_number(Cursor *s) {
    const unsigned char *p = s->p;
    if (p < s->end && *p == '-')
        p++;
    if (p >= s->end)
        return -1;
    long digits = 0;
    if (*p == '0') {
        p++;
        digits = 1;
    } else if (*p >= '1' && *p <= '9') {
        while (p < s->end && *p >= '0' && *p <= '9') {
            p++;
            digits++;
        }
    } else {
        return -1;
    }
    if (p < s->end && *p == '.') {
        p++;
        if (p >= s->end || *p < '0' || *p > '9')
            return -1;
        while (p < s->end && *p >= '0' && *p <= '9')
            p++;
    }
    long exponent = 0;
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        p++;
        int negative = 0;
        if (p < s->end && (*p == '+' || *p == '-')) {
            negative = *p == '-';
            p++;
        }
        if (p >= s->end || *p < '0' || *p > '9')
            return -1;
        int exp_digits = 0;
        while (p < s->end && *p >= '0' && *p <= '9') {
            if (++exp_digits > 6)
                return -1;
            exponent = exponent * 10 + (*p - '0');
            p++;
        }
        if (negative)
            exponent = -exponent;
    }
    if (digits + exponent > MAX_MAGNITUDE || digits > MAX_MAGNITUDE)
        return -1;
    s->p = p;
    return 0;
}

static int scan_literal(Cursor *s, const char *word, size_t len) {
    if ((size_t)(s->end - s->p) < len || memcmp(s->p, word, len) != 0)
        return -1;
    s->p += len;
    return 0;
}

/* A value at s->p (after any space), containers nested no deeper than MAX_DEPTH counting the
 * s->depth levels around it. Iterative (a stack of the open containers' closing brackets): a
 * kernel json is mostly small nested objects and arrays, where a call per level cost a third of
 * the check. */
static int scan_value(Cursor *s) {
    unsigned char open[MAX_DEPTH + 1];
    int top = 0;
    const unsigned char *start;
    Py_ssize_t len;
    int escaped;
value:
    skip_space(s);
    if (s->p >= s->end)
        return -1;
    switch (*s->p) {
    case '{':
    case '[': {
        unsigned char close = *s->p == '{' ? '}' : ']';
        if (s->depth + top + 1 > MAX_DEPTH)
            return -1;
        s->p++;
        skip_space(s);
        if (s->p < s->end && *s->p == close) {
            s->p++;
            goto after_value;
        }
        open[top++] = close;
        if (close == ']')
            goto value;
        goto member;
    }
    case '"':
        if (scan_string(s, &start, &len, &escaped))
            return -1;
        goto after_value;
    case 't':
        if (scan_literal(s, "true", 4))
            return -1;
        goto after_value;
    case 'f':
        if (scan_literal(s, "false", 5))
            return -1;
        goto after_value;
    case 'n':
        if (scan_literal(s, "null", 4))
            return -1;
        goto after_value;
    default:
        if (scan_number(s))
            return -1;
        goto after_value;
    }
member: /* an object's member: its key, a colon, then its value */
    if (s->p >= s->end || *s->p != '"' || scan_string(s, &start, &len, &escaped))
        return -1;
    skip_space(s);
    if (s->p >= s->end || *s->p != ':')
        return -1;
    s->p++;
    goto value;
after_value:
    if (top == 0)
        return 0;
    skip_space(s);
    if (s->p >= s->end)
        return -1;
    if (*s->p == ',') {
        s->p++;
        skip_space(s);
        if (open[top - 1] == '}')
            goto member;
        goto value;
    }
    if (*s->p == open[top - 1]) {
        s->p++;
        top--;
        goto after_value;
    }
    return -1;
}

/* What a kernel json names, as pointers into its text. */
#define MAX_LISTED 64

typedef struct {
    const unsigned char *bin_name, *bin_suffix;
    Py_ssize_t bin_name_len, bin_suffix_len;
    int names, suffixes, lists; /* how often each top-level key occurs */
    int listed;                 /* the jsonList's items (each an object with one "jsonFileName") */
    const unsigned char *listed_name[MAX_LISTED];
    Py_ssize_t listed_len[MAX_LISTED];
} KernelFields;

static int key_is(const unsigned char *key, Py_ssize_t len, const char *word) {
    return (size_t)len == strlen(word) && memcmp(key, word, (size_t)len) == 0;
}

/* A string without escapes at s->p: its content. */
static int plain_string(Cursor *s, const unsigned char **value, Py_ssize_t *len) {
    int escaped;
    if (s->p >= s->end || *s->p != '"' || scan_string(s, value, len, &escaped) || escaped)
        return -1;
    return 0;
}

/* A key (a string without escapes: a key spelled with escapes could be any of CANN's, so such
 * a json goes the Python way), the space and the colon after it. */
static int object_key(Cursor *s, const unsigned char **key, Py_ssize_t *len) {
    skip_space(s);
    if (plain_string(s, key, len))
        return -1;
    skip_space(s);
    if (s->p >= s->end || *s->p != ':')
        return -1;
    s->p++;
    skip_space(s);
    return 0;
}

/* After a member: "," (returns 1, more follow) or the closing bracket (returns 0). */
static int next_member(Cursor *s, unsigned char close) {
    skip_space(s);
    if (s->p >= s->end)
        return -1;
    if (*s->p == ',') {
        s->p++;
        return 1;
    }
    if (*s->p == close) {
        s->p++;
        return 0;
    }
    return -1;
}

/* The jsonList array: objects, each with "jsonFileName" once as a string without escapes
 * (other keys any valid value). */
static int json_list(Cursor *s, KernelFields *out) {
    if (s->p >= s->end || *s->p != '[')
        return -1;
    s->p++;
    skip_space(s);
    if (s->p < s->end && *s->p == ']') {
        s->p++;
        return 0;
    }
    s->depth = 2;
    for (;;) {
        skip_space(s);
        if (s->p >= s->end || *s->p != '{' || out->listed >= MAX_LISTED)
            return -1;
        s->p++;
        s->depth = 3;
        int found = 0;
        for (;;) {
            const unsigned char *key;
            Py_ssize_t key_len;
            if (object_key(s, &key, &key_len))
                return -1;
            if (key_is(key, key_len, "jsonFileName")) {
                if (found++ || plain_string(s, &out->listed_name[out->listed], &out->listed_len[out->listed]))
                    return -1;
            } else if (scan_value(s)) {
                return -1;
            }
            int more = next_member(s, '}');
            if (more < 0)
                return -1;
            if (!more)
                break;
        }
        if (found != 1)
            return -1;
        out->listed++;
        s->depth = 2;
        int more = next_member(s, ']');
        if (more < 0)
            return -1;
        if (!more)
            return 0;
    }
}

/* A strictly valid json object (scan_value's rules), and what its top level names: returns 0
 * and fills `out`. A top-level key spelled with escapes, a "binFileName" or "binFileSuffix"
 * that is not a string without escapes, or a "jsonList" other than json_list's refuses it. */
static int kernel_json(const unsigned char *data, Py_ssize_t size, KernelFields *out) {
    Cursor s = {data, data + size, 1};
    memset(out, 0, sizeof(*out));
    skip_space(&s);
    if (s.p >= s.end || *s.p != '{')
        return -1;
    s.p++;
    skip_space(&s);
    if (s.p < s.end && *s.p == '}')
        s.p++;
    else
        for (;;) {
            const unsigned char *key;
            Py_ssize_t key_len;
            if (object_key(&s, &key, &key_len))
                return -1;
            if (key_is(key, key_len, "binFileName")) {
                out->names++;
                if (plain_string(&s, &out->bin_name, &out->bin_name_len))
                    return -1;
            } else if (key_is(key, key_len, "binFileSuffix")) {
                out->suffixes++;
                if (plain_string(&s, &out->bin_suffix, &out->bin_suffix_len))
                    return -1;
            } else if (key_is(key, key_len, "jsonList")) {
                if (out->lists++ || json_list(&s, out))
                    return -1;
                s.depth = 1;
            } else if (scan_value(&s)) {
                return -1;
            }
            int more = next_member(&s, '}');
            if (more < 0)
                return -1;
            if (!more)
                break;
        }
    skip_space(&s);
    if (s.p != s.end)
        return -1; /* text after the value: nlohmann's non-strict read, the Python way */
    return 0;
}

/* A plain kernel json names its binary once and lists nothing. */
static int names_its_binary(const KernelFields *f) { return f->lists == 0 && f->names == 1 && f->suffixes == 1; }

/* ---- the prediction's steps: select_step, read_groups, account --------------------------------
 *
 * A prediction keeps the groups it has read in a compact store (cleanup.GroupStore): per chunk of
 * the walk's jsons an array of int64 "bins" and a bytearray of suffix ids, one item per json:
 * a plain group (the json and the binary named like it, "<json stem><suffix>", no note) is its
 * binary's size (>= 0) and the id of its suffix in the store's suffix list; any other group is
 * made by Python (a cleanup.Group in the store's `others`) and marked BIN_OTHER, or BIN_UNPARSED
 * when CANN cannot parse its json. No Python object is made per plain group: a prediction's
 * `delete` holds keys and makes a Group only when one is asked for. */
#define BIN_UNREAD -1
#define BIN_OTHER -2
#define BIN_UNPARSED -3
#define BIN_LEFT -4   /* read_groups only: left to Python */
#define BIN_RECORD -5 /* read_groups only: its members are in the dir's record arena */
#define MAX_SUFFIXES 255

/* Read `name` (in `dir_fd`, opened with `flags`) into *buffer, growing it: 0 when it holds
 * exactly `size` bytes, -2 when no memory. Called without the interpreter lock. A read that
 * gives less than asked for (size + 1 bytes: one more tells a file that grew) is its end: a
 * regular file's read stops short only there (a signal aside, which EINTR or a retry covers). */
static int read_exactly(int dir_fd, const char *name, int flags, long long size, unsigned char **buffer,
                        size_t *capacity) {
    if ((size_t)size + 1 > *capacity) {
        unsigned char *grown = realloc(*buffer, (size_t)size + 1);
        if (!grown)
            return -2;
        *buffer = grown;
        *capacity = (size_t)size + 1;
    }
    Py_ssize_t got = 0;
    unsigned char *into = *buffer;
    int fd = openat(dir_fd, name, flags);
    if (fd < 0)
        return -1;
    while ((size_t)got < (size_t)size + 1) {
        ssize_t n = read(fd, into + got, (size_t)size + 1 - (size_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n < 0)
                got = -1;
            break;
        }
        got += n;
        if (got == size)
            break; /* short of size + 1: the end */
    }
    close(fd);
    return got == size ? 0 : -1;
}

/* A plain name in the json's own dir: not empty, no "/" and no NUL, not "." or "..". */
static int plain_name(const char *name, Py_ssize_t len) {
    return len > 0 && !memchr(name, '/', (size_t)len) && !memchr(name, 0, (size_t)len) &&
           !(len == 1 && name[0] == '.') && !(len == 2 && name[0] == '.' && name[1] == '.');
}

/* lstat size of a file in `dir_fd` that exists and is not a directory, else -1. With `regular`,
 * only a regular file. */
static long long size_at(int dir_fd, const char *name, int regular) {
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode) ||
        (regular && !S_ISREG(st.st_mode)))
        return -1;
    return (long long)st.st_size;
}

/* "<binFileName><binFileSuffix>" of `f` into `out` (MAX_NAME bytes): its length, or -1 when it
 * is not a plain name or too long. */
static Py_ssize_t binary_name(const KernelFields *f, char *out) {
    Py_ssize_t len = f->bin_name_len + f->bin_suffix_len;
    if (len >= MAX_NAME)
        return -1;
    memcpy(out, f->bin_name, (size_t)f->bin_name_len);
    memcpy(out + f->bin_name_len, f->bin_suffix, (size_t)f->bin_suffix_len);
    out[len] = 0;
    return plain_name(out, len) ? len : -1;
}

/* The dir `rel` (a path below the dir `root`, components separated by "/") opened one component
 * at a time without following a symlink, as cleanup._open_dir does; -1 when it
 * cannot be. */
static int open_below(int root, const char *rel) {
    if (!rel || !*rel)
        return root;
    char part[MAX_NAME];
    int fd = root;
    const char *p = rel;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || len >= sizeof part) {
            if (fd != root)
                close(fd);
            return -1;
        }
        memcpy(part, p, len);
        part[len] = 0;
        int next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd != root)
            close(fd);
        if (next < 0)
            return -1;
        fd = next;
        p += len;
        if (*p == '/')
            p++;
    }
    return fd;
}

/* Bytes a reading thread collects for Python: per group that is not plain but that C read whole
 * (a mix kernel, a json naming a binary not named like it), a record
 *   [Py_ssize_t pos][int count] count x ([long long size][Py_ssize_t len][len bytes])
 * of its members after the json itself. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
} Arena;

static int arena_put(Arena *a, const void *p, size_t n) {
    if (a->len + n > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 4096;
        while (cap < a->len + n)
            cap *= 2;
        unsigned char *grown = realloc(a->data, cap);
        if (!grown)
            return -1;
        a->data = grown;
        a->cap = cap;
    }
    memcpy(a->data + a->len, p, n);
    a->len += n;
    return 0;
}

static int arena_member(Arena *a, const char *name, Py_ssize_t len, long long size) {
    return arena_put(a, &size, sizeof size) || arena_put(a, &len, sizeof len) || arena_put(a, name, (size_t)len);
}

typedef struct {
    const char *name; /* UTF-8, no NUL (the name's own buffer: the chunk's list holds it) */
    Py_ssize_t name_len, pos;
    long long size; /* as the walk saw it */
} Job;

typedef struct {
    char *rel; /* the dir below the SoC dir (PyMem_Malloc'd), NULL for the SoC dir itself */
    Py_ssize_t chunk;
    Job *jobs;
    Py_ssize_t count;
    long long *bins;    /* the chunk's store bins (a held buffer) */
    unsigned char *sfx; /* the chunk's store suffix ids (a held buffer) */
    const long long *walk_bins; /* the walk's sizes of "<stem><walk suffix>" (plain_chunk), or NULL */
    Py_buffer bins_view, sfx_view;
    int views;
    Arena records;
} DirWork;

typedef struct {
    int root, open_flags;
    long long max_bytes;
    const char *walk_suffix; /* the suffix of the walk's json_bins */
    Py_ssize_t walk_suffix_len;
    DirWork *dirs;
    Py_ssize_t count, next;
    pthread_mutex_t lock; /* the suffix table and `nomem` */
    char *suffix[MAX_SUFFIXES];
    size_t suffix_len[MAX_SUFFIXES];
    int suffixes, nomem;
} Shared;

/* The id of `suffix` in the shared table, added when new; -1 when the table is full or no memory. */
static int suffix_id(Shared *sh, const unsigned char *suffix, size_t len) {
    int id = -1;
    pthread_mutex_lock(&sh->lock);
    for (int i = 0; i < sh->suffixes; i++)
        if (sh->suffix_len[i] == len && memcmp(sh->suffix[i], suffix, len) == 0) {
            id = i;
            break;
        }
    if (id < 0 && sh->suffixes < MAX_SUFFIXES) {
        char *copy = malloc(len + 1);
        if (copy) {
            memcpy(copy, suffix, len);
            copy[len] = 0;
            id = sh->suffixes++;
            sh->suffix[id] = copy;
            sh->suffix_len[id] = len;
        } else {
            sh->nomem = 1;
        }
    }
    pthread_mutex_unlock(&sh->lock);
    return id;
}

/* A mix kernel's listed jsons (each a plain kernel json in the same dir naming its binary), as
 * members into the record: 0, or -1 when one is not plain (the Python way), -2 no memory. */
static int listed_members(Shared *sh, int dir_fd, const KernelFields *main_fields, Arena *record,
                          unsigned char **buffer, size_t *capacity) {
    /* The names point into the main json's text, which the reads below overwrite. */
    char names[MAX_LISTED][MAX_NAME];
    int count = main_fields->listed;
    for (int k = 0; k < count; k++) {
        Py_ssize_t len = main_fields->listed_len[k];
        if (len >= MAX_NAME)
            return -1;
        memcpy(names[k], main_fields->listed_name[k], (size_t)len);
        names[k][len] = 0;
        if (!plain_name(names[k], len))
            return -1;
    }
    for (int k = 0; k < count; k++) {
        long long sub_size = size_at(dir_fd, names[k], 1);
        KernelFields sub;
        char bin[MAX_NAME];
        if (sub_size <= 0 || sub_size > sh->max_bytes)
            return -1;
        int rc = read_exactly(dir_fd, names[k], sh->open_flags, sub_size, buffer, capacity);
        if (rc)
            return rc;
        if (kernel_json(*buffer, (Py_ssize_t)sub_size, &sub) || !names_its_binary(&sub))
            return -1;
        Py_ssize_t bin_len = binary_name(&sub, bin);
        long long bin_size = bin_len < 0 ? -1 : size_at(dir_fd, bin, 0);
        if (bin_size < 0)
            return -1;
        if (arena_member(record, names[k], main_fields->listed_len[k], sub_size) ||
            arena_member(record, bin, bin_len, bin_size))
            return -2;
    }
    return 0;
}

/* Read one json of a dir (cleanup._resolve's plain cases): its bin and suffix id set, or a record
 * made (BIN_RECORD), or BIN_LEFT. -2 when no memory. */
static int read_one(Shared *sh, DirWork *dir, int dir_fd, Job *job, Arena *scratch, unsigned char **buffer,
                    size_t *capacity) {
    long long *bin_out = &dir->bins[job->pos];
    *bin_out = BIN_LEFT;
    if (job->size <= 0 || job->size > sh->max_bytes)
        return 0;
    int rc = read_exactly(dir_fd, job->name, sh->open_flags, job->size, buffer, capacity);
    if (rc)
        return rc == -2 ? -2 : 0;
    KernelFields fields;
    if (kernel_json(*buffer, (Py_ssize_t)job->size, &fields))
        return 0;
    scratch->len = 0;
    int members; /* put into `scratch` */
    if (fields.lists == 1) {
        rc = listed_members(sh, dir_fd, &fields, scratch, buffer, capacity);
        if (rc)
            return rc == -2 ? -2 : 0;
        members = 2 * fields.listed; /* each listed json and its binary */
    } else if (names_its_binary(&fields)) {
        char bin[MAX_NAME];
        Py_ssize_t bin_len = binary_name(&fields, bin);
        Py_ssize_t stem_len = job->name_len - 5;
        int same_stem = job->name_len > 5 && memcmp(job->name + stem_len, ".json", 5) == 0 &&
                        fields.bin_name_len == stem_len && memcmp(fields.bin_name, job->name, (size_t)stem_len) == 0;
        long long bin_size = -1;
        if (bin_len >= 0 && same_stem && dir->walk_bins && dir->walk_bins[job->pos] >= 0 &&
            fields.bin_suffix_len == sh->walk_suffix_len &&
            memcmp(fields.bin_suffix, sh->walk_suffix, (size_t)sh->walk_suffix_len) == 0)
            bin_size = dir->walk_bins[job->pos]; /* the walk's lstat of this very name */
        else if (bin_len >= 0)
            bin_size = size_at(dir_fd, bin, 0);
        if (bin_size < 0)
            return 0;
        if (same_stem) {
            int id = suffix_id(sh, fields.bin_suffix, (size_t)fields.bin_suffix_len);
            if (id >= 0) {
                dir->sfx[job->pos] = (unsigned char)id;
                *bin_out = bin_size;
            }
            return 0;
        }
        if (arena_member(scratch, bin, bin_len, bin_size))
            return -2;
        members = 1;
    } else {
        return 0;
    }
    if (arena_put(&dir->records, &job->pos, sizeof job->pos) || arena_put(&dir->records, &members, sizeof members) ||
        arena_put(&dir->records, scratch->data, scratch->len))
        return -2;
    *bin_out = BIN_RECORD;
    return 0;
}

/* A reading thread: takes the next dir until none is left. */
static void *read_dirs(void *arg) {
    Shared *sh = arg;
    unsigned char *buffer = NULL;
    size_t capacity = 0;
    Arena scratch = {NULL, 0, 0};
    for (;;) {
        Py_ssize_t at = __atomic_fetch_add(&sh->next, 1, __ATOMIC_RELAXED);
        if (at >= sh->count)
            break;
        DirWork *dir = &sh->dirs[at];
        int dir_fd = open_below(sh->root, dir->rel);
        for (Py_ssize_t j = 0; j < dir->count; j++) {
            if (dir_fd < 0) {
                dir->bins[dir->jobs[j].pos] = BIN_LEFT;
                continue;
            }
            if (read_one(sh, dir, dir_fd, &dir->jobs[j], &scratch, &buffer, &capacity) == -2) {
                dir->bins[dir->jobs[j].pos] = BIN_LEFT;
                pthread_mutex_lock(&sh->lock);
                sh->nomem = 1;
                pthread_mutex_unlock(&sh->lock);
            }
        }
        if (dir_fd >= 0 && dir_fd != sh->root)
            close(dir_fd);
    }
    free(buffer);
    free(scratch.data);
    return NULL;
}

/* A helper thread of read_groups: read_dirs with a file-descriptor table of its own (a copy,
 * unshare CLONE_FILES), so that its opens and closes of jsons do not contend with the other
 * threads' for one table (two threads sharing one read ~35 % slower than two with their own). */
static long long helper_cpu_ns; /* the CPU time of every helper thread so far (helper_cpu_seconds) */

static void *helper_thread(void *arg) {
    (void)unshare(CLONE_FILES); /* when refused, the shared table: slower, the same answers */
    void *done = read_dirs(arg);
    struct timespec used;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used) == 0)
        __atomic_fetch_add(&helper_cpu_ns, (long long)used.tv_sec * 1000000000LL + used.tv_nsec, __ATOMIC_RELAXED);
    return done;
}

/* helper_cpu_seconds() -> float: the CPU seconds read_groups' helper threads have used in this
 * process (a part of its own CPU time: the benchmarks' model of cores tells it apart). */
static PyObject *helper_cpu_seconds(PyObject *self, PyObject *args) {
    (void)self;
    (void)args;
    return PyFloat_FromDouble((double)__atomic_load_n(&helper_cpu_ns, __ATOMIC_RELAXED) / 1e9);
}

/* A chunk's buffer of `kind` ("bins": int64 items; "sfx": bytes) from the store's list. */
static int chunk_buffer(PyObject *list, Py_ssize_t chunk, Py_ssize_t items, Py_ssize_t itemsize, Py_buffer *view) {
    if (chunk < 0 || chunk >= PyList_GET_SIZE(list)) {
        PyErr_SetString(PyExc_IndexError, "no such chunk");
        return -1;
    }
    if (PyObject_GetBuffer(PyList_GET_ITEM(list, chunk), view, PyBUF_WRITABLE | PyBUF_ND) < 0)
        return -1;
    if (view->itemsize != itemsize || view->len != items * itemsize) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, "a store buffer does not match its chunk");
        return -1;
    }
    return 0;
}

static int is_pre_json(PyObject *name, PyObject *pre_suffix) {
    return PyUnicode_Tailmatch(name, pre_suffix, 0, PY_SSIZE_T_MAX, 1) == 1;
}

/* read_groups(root_fd, soc_dir, todo, jsons, bins, sfx, suffixes, threads, open_flags, max_bytes,
 *             walk_bins, walk_suffix) -> (records, left, new_suffixes)
 *
 * Read the jsons `todo` ({chunk: [position, ...]} of the walk's `jsons`, whose dirs lie in the
 * SoC dir `soc_dir`, open as `root_fd`) in up to `threads` threads, a dir at a time (each opened
 * below `root_fd` one component at a time without following a symlink), the interpreter lock
 * released. A json is read (`open_flags`, at most `max_bytes`) only when it is exactly the size
 * the walk saw and a strictly valid kernel json (kernel_json); then
 * - a json naming the binary named like it, which exists: its store item is set (bins: the
 *   binary's size; sfx: its suffix's id in `suffixes`, the new ones given back in order); the
 *   binary's size is the walk's when `walk_bins` (per chunk, plain_chunk's json_bins or None)
 *   has it for that json and the suffix is `walk_suffix`, else its lstat now;
 * - a mix kernel whose listed jsons are such jsons, or a json naming another plain binary:
 *   `records` gets (chunk, position, members) - the members after the json, (name, size, ...);
 * - anything else (a `_pre.json`, a dir that cannot be opened, an odd name, anything kernel_json
 *   refuses): `left` gets (chunk, position), for the Python way (cleanup._resolve).
 * The store items of records and of `left` stay BIN_UNREAD. */
static PyObject *read_groups(PyObject *self, PyObject *args) {
    (void)self;
    int root_fd, threads;
    PyObject *soc_dir, *todo, *jsons, *bins, *sfx, *suffixes;
    Shared sh;
    memset(&sh, 0, sizeof sh);
    PyObject *walk_bins, *walk_suffix;
    if (!PyArg_ParseTuple(args, "iUO!O!O!O!O!iiLO!U", &root_fd, &soc_dir, &PyDict_Type, &todo, &PyList_Type, &jsons,
                          &PyList_Type, &bins, &PyList_Type, &sfx, &PyList_Type, &suffixes, &threads, &sh.open_flags,
                          &sh.max_bytes, &PyList_Type, &walk_bins, &walk_suffix))
        return NULL;
    sh.walk_suffix = PyUnicode_AsUTF8AndSize(walk_suffix, &sh.walk_suffix_len);
    if (!sh.walk_suffix)
        return NULL;
    if (PyList_GET_SIZE(walk_bins) != PyList_GET_SIZE(jsons)) {
        PyErr_SetString(PyExc_ValueError, "read_groups: one walk_bins item per chunk");
        return NULL;
    }
    sh.root = root_fd;
    pthread_mutex_init(&sh.lock, NULL);
    PyObject *records = PyList_New(0), *left = PyList_New(0), *fresh = PyList_New(0), *result = NULL;
    PyObject *pre_suffix = PyUnicode_FromString("_pre.json");
    Py_ssize_t soc_len = PyUnicode_GET_LENGTH(soc_dir), initial = PyList_GET_SIZE(suffixes);
    sh.dirs = PyMem_Calloc((size_t)(PyDict_GET_SIZE(todo) + 1), sizeof(DirWork));
    if (!records || !left || !fresh || !pre_suffix || !sh.dirs)
        goto done;
    if (initial > MAX_SUFFIXES) {
        PyErr_SetString(PyExc_ValueError, "too many suffixes");
        goto done;
    }
    for (Py_ssize_t i = 0; i < initial; i++) {
        Py_ssize_t len;
        const char *text = PyUnicode_AsUTF8AndSize(PyList_GET_ITEM(suffixes, i), &len);
        if (!text || !(sh.suffix[i] = malloc((size_t)len + 1)))
            goto done;
        memcpy(sh.suffix[i], text, (size_t)len + 1);
        sh.suffix_len[i] = (size_t)len;
        sh.suffixes++;
    }
    PyObject *chunk_obj, *positions;
    Py_ssize_t walk = 0;
    while (PyDict_Next(todo, &walk, &chunk_obj, &positions)) {
        Py_ssize_t chunk = PyLong_AsSsize_t(chunk_obj);
        if ((chunk == -1 && PyErr_Occurred()) || !PyList_Check(positions))
            goto bad;
        if (chunk < 0 || chunk >= PyList_GET_SIZE(jsons))
            goto bad;
        PyObject *entry = PyList_GET_ITEM(jsons, chunk);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 4 || !PyUnicode_Check(PyTuple_GET_ITEM(entry, 0)) ||
            !PyList_Check(PyTuple_GET_ITEM(entry, 1)))
            goto bad;
        PyObject *folder = PyTuple_GET_ITEM(entry, 0), *names = PyTuple_GET_ITEM(entry, 1);
        Py_ssize_t items = PyList_GET_SIZE(names);
        DirWork *dir = &sh.dirs[sh.count++];
        dir->chunk = chunk;
        if (chunk_buffer(bins, chunk, items, 8, &dir->bins_view) < 0)
            goto done;
        if (chunk_buffer(sfx, chunk, items, 1, &dir->sfx_view) < 0) {
            PyBuffer_Release(&dir->bins_view);
            goto done;
        }
        dir->views = 1;
        dir->bins = dir->bins_view.buf;
        dir->sfx = dir->sfx_view.buf;
        PyObject *seen = PyList_GET_ITEM(walk_bins, chunk);
        if (PyBytes_Check(seen) && PyBytes_GET_SIZE(seen) == items * 8)
            dir->walk_bins = (const long long *)PyBytes_AS_STRING(seen); /* held by the list */
        else if (seen != Py_None)
            goto bad;
        Py_buffer sizes_view;
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(entry, 3), &sizes_view, PyBUF_ND) < 0)
            goto done;
        if (sizes_view.itemsize != 8 || sizes_view.len != items * 8) {
            PyBuffer_Release(&sizes_view);
            goto bad;
        }
        const long long *sizes = sizes_view.buf;
        /* The dir below the SoC dir; a dir elsewhere, or one not UTF-8, is read the Python way. */
        int readable = 0;
        Py_ssize_t folder_len = PyUnicode_GET_LENGTH(folder);
        if (folder_len >= soc_len && PyUnicode_Tailmatch(folder, soc_dir, 0, soc_len, -1) == 1) {
            if (folder_len == soc_len) {
                readable = 1;
            } else if (PyUnicode_READ_CHAR(folder, soc_len) == '/') {
                PyObject *rel = PyUnicode_Substring(folder, soc_len + 1, folder_len);
                Py_ssize_t rel_len = 0;
                const char *text = rel ? PyUnicode_AsUTF8AndSize(rel, &rel_len) : NULL;
                if (text && (Py_ssize_t)strlen(text) == rel_len && rel_len < MAX_NAME &&
                    (dir->rel = PyMem_Malloc((size_t)rel_len + 1))) {
                    memcpy(dir->rel, text, (size_t)rel_len + 1);
                    readable = 1;
                }
                if (!text)
                    PyErr_Clear();
                Py_XDECREF(rel);
            }
        }
        dir->jobs = PyMem_Malloc(((size_t)PyList_GET_SIZE(positions) + 1) * sizeof(Job));
        if (!dir->jobs) {
            PyBuffer_Release(&sizes_view);
            PyErr_NoMemory();
            goto done;
        }
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(positions); k++) {
            Py_ssize_t pos = PyLong_AsSsize_t(PyList_GET_ITEM(positions, k));
            if ((pos == -1 && PyErr_Occurred()) || pos < 0 || pos >= items) {
                PyBuffer_Release(&sizes_view);
                goto bad;
            }
            PyObject *name = PyList_GET_ITEM(names, pos);
            Py_ssize_t len = 0;
            const char *text = NULL;
            if (readable && PyUnicode_Check(name) && !is_pre_json(name, pre_suffix)) {
                text = PyUnicode_AsUTF8AndSize(name, &len);
                if (!text)
                    PyErr_Clear(); /* not UTF-8 (surrogateescape): the Python way */
                else if ((Py_ssize_t)strlen(text) != len || len >= MAX_NAME)
                    text = NULL;
            }
            if (!text) {
                PyObject *item = Py_BuildValue("(nn)", chunk, pos);
                if (!item || PyList_Append(left, item) < 0) {
                    Py_XDECREF(item);
                    PyBuffer_Release(&sizes_view);
                    goto done;
                }
                Py_DECREF(item);
                continue;
            }
            Job *job = &dir->jobs[dir->count++];
            job->name = text;
            job->name_len = len;
            job->pos = pos;
            job->size = sizes[pos];
        }
        PyBuffer_Release(&sizes_view);
    }
    Py_BEGIN_ALLOW_THREADS
    pthread_t helpers[64];
    int started = 0;
    for (int t = 1; t < threads && t <= 64 && t < sh.count; t++) {
        if (pthread_create(&helpers[started], NULL, helper_thread, &sh) != 0)
            break;
        started++;
    }
    read_dirs(&sh);
    for (int t = 0; t < started; t++)
        pthread_join(helpers[t], NULL);
    Py_END_ALLOW_THREADS
    if (sh.nomem) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t d = 0; d < sh.count; d++) {
        DirWork *dir = &sh.dirs[d];
        for (Py_ssize_t j = 0; j < dir->count; j++) {
            Py_ssize_t pos = dir->jobs[j].pos;
            if (dir->bins[pos] == BIN_LEFT) {
                dir->bins[pos] = BIN_UNREAD;
                PyObject *item = Py_BuildValue("(nn)", dir->chunk, pos);
                if (!item || PyList_Append(left, item) < 0) {
                    Py_XDECREF(item);
                    goto done;
                }
                Py_DECREF(item);
            }
        }
        for (size_t at = 0; at < dir->records.len;) {
            Py_ssize_t pos;
            int members;
            memcpy(&pos, dir->records.data + at, sizeof pos);
            memcpy(&members, dir->records.data + at + sizeof pos, sizeof members);
            at += sizeof pos + sizeof members;
            dir->bins[pos] = BIN_UNREAD;
            PyObject *files = PyTuple_New(2 * members);
            if (!files)
                goto done;
            for (int m = 0; m < members; m++) {
                long long size;
                Py_ssize_t len;
                memcpy(&size, dir->records.data + at, sizeof size);
                memcpy(&len, dir->records.data + at + sizeof size, sizeof len);
                at += sizeof size + sizeof len;
                PyObject *name = PyUnicode_FromStringAndSize((const char *)dir->records.data + at, len);
                at += (size_t)len;
                PyObject *size_obj = name ? PyLong_FromLongLong(size) : NULL;
                if (!size_obj) {
                    Py_XDECREF(name);
                    Py_DECREF(files);
                    goto done;
                }
                PyTuple_SET_ITEM(files, 2 * m, name);
                PyTuple_SET_ITEM(files, 2 * m + 1, size_obj);
            }
            PyObject *item = Py_BuildValue("(nnN)", dir->chunk, pos, files);
            if (!item || PyList_Append(records, item) < 0) {
                Py_XDECREF(item);
                goto done;
            }
            Py_DECREF(item);
        }
    }
    for (int i = (int)initial; i < sh.suffixes; i++) {
        PyObject *text = PyUnicode_FromStringAndSize(sh.suffix[i], (Py_ssize_t)sh.suffix_len[i]);
        if (!text || PyList_Append(fresh, text) < 0) {
            Py_XDECREF(text);
            goto done;
        }
        Py_DECREF(text);
    }
    result = Py_BuildValue("(OOO)", records, left, fresh);
    goto done;
bad:
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "read_groups: a chunk, a position or a column is not the store's");
done:
    if (sh.dirs) {
        for (Py_ssize_t d = 0; d < sh.count; d++) {
            DirWork *dir = &sh.dirs[d];
            if (dir->views) {
                PyBuffer_Release(&dir->bins_view);
                PyBuffer_Release(&dir->sfx_view);
            }
            PyMem_Free(dir->rel);
            PyMem_Free(dir->jobs);
            free(dir->records.data);
        }
        PyMem_Free(sh.dirs);
    }
    for (int i = 0; i < sh.suffixes; i++)
        free(sh.suffix[i]);
    pthread_mutex_destroy(&sh.lock);
    Py_XDECREF(records);
    Py_XDECREF(left);
    Py_XDECREF(fresh);
    Py_XDECREF(pre_suffix);
    return result;
}

/* The key layout of SocUsage.ordered_candidates: seconds << shift | chunk << pos_bits | position. */
typedef struct {
    int shift, pos_bits;
    long long pos_mask;
} Layout;

static int split_key(PyObject *key_obj, const Layout *lay, Py_ssize_t chunks, long long *second, Py_ssize_t *chunk,
                     Py_ssize_t *pos) {
    long long key = PyLong_AsLongLong(key_obj);
    if (key == -1 && PyErr_Occurred())
        return -1;
    *second = key >> lay->shift;
    *chunk = (Py_ssize_t)((key & ((1LL << lay->shift) - 1)) >> lay->pos_bits);
    *pos = (Py_ssize_t)(key & lay->pos_mask);
    if (*chunk >= chunks) {
        PyErr_SetString(PyExc_ValueError, "a key names no chunk");
        return -1;
    }
    return 0;
}

/* The int64 columns of every chunk, held for one call: the store's bins (writable) or the walk's
 * sizes (item 3 of each jsons entry). */
typedef struct {
    Py_ssize_t count, held;
    Py_buffer *views;
} Columns;

static void columns_close(Columns *c) {
    for (Py_ssize_t i = 0; i < c->held; i++)
        PyBuffer_Release(&c->views[i]);
    PyMem_Free(c->views);
    c->views = NULL;
    c->held = 0;
}

/* Hold the buffer of each item of `list` (of its item `field` when >= 0), `items[i]` int64s each. */
static int columns_open(Columns *c, PyObject *list, Py_ssize_t field, PyObject *jsons) {
    c->count = PyList_GET_SIZE(list);
    c->held = 0;
    c->views = PyMem_Calloc((size_t)c->count + 1, sizeof(Py_buffer));
    if (!c->views) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < c->count; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (field >= 0) {
            if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) <= field) {
                PyErr_SetString(PyExc_ValueError, "a jsons entry is not (dir, names, atimes, sizes)");
                columns_close(c);
                return -1;
            }
            item = PyTuple_GET_ITEM(item, field);
        }
        if (PyObject_GetBuffer(item, &c->views[i], PyBUF_ND) < 0) {
            columns_close(c);
            return -1;
        }
        c->held++;
        PyObject *names = PyTuple_GET_ITEM(PyList_GET_ITEM(jsons, i), 1);
        if (c->views[i].itemsize != 8 || c->views[i].len != PyList_GET_SIZE(names) * 8) {
            PyErr_SetString(PyExc_ValueError, "a column does not match its chunk's names");
            columns_close(c);
            return -1;
        }
    }
    return 0;
}

static long long *column(Columns *c, Py_ssize_t chunk) { return (long long *)c->views[chunk].buf; }

/* jsons is a list of (dir, names list, atimes, sizes): checked once per call. */
static int check_jsons(PyObject *jsons) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(jsons); i++) {
        PyObject *entry = PyList_GET_ITEM(jsons, i);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 4 || !PyList_Check(PyTuple_GET_ITEM(entry, 1))) {
            PyErr_SetString(PyExc_ValueError, "a jsons entry is not (dir, names, atimes, sizes)");
            return -1;
        }
    }
    return 0;
}

/* Marks of select_step (one byte per key it passes). */
#define MARK_READ 0
#define MARK_PRE 1
#define MARK_SAVED 2
/* Rules of select_step (cleanup's app.opcache.atime rules, as numbers). */
#define RULE_NONE_SAVES 0
#define RULE_RELATIME 1
#define RULE_ALL_SAVED 2

/* select_step(keys, pos, end, want, layout, jsons, bins, read_marks, rule, now_s, max_age,
 *             pre_suffix, should_stop, stopped) -> (marks, todo, stopped)
 *
 * The next step of CANN's order from keys[pos] (SocUsage.ordered_candidates, `layout` its
 * (shift, pos_bits, pos_mask)), before keys[end]: a mark per key until `want` keys are to be
 * read - MARK_PRE for a name ending with `pre_suffix`, MARK_SAVED where the read saves the group
 * (`rule` RULE_ALL_SAVED; or RULE_RELATIME when the json was not read after its last change,
 * `read_marks`, or its access second is `max_age` old at `now_s`: app.opcache.atime), else
 * MARK_READ. Before each key to read whose store item is BIN_UNREAD `should_stop` (None: never)
 * is asked, and the first True (or `stopped` given true) ends the step before that key, `stopped`
 * then true. `todo`: {chunk: [position, ...]} of the keys to read that are unread. */
static PyObject *select_step(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *keys, *jsons, *bins, *read_marks, *pre_suffix, *should_stop;
    Py_ssize_t pos, end, want;
    Layout lay;
    int rule, stopped;
    long long now_s, max_age;
    if (!PyArg_ParseTuple(args, "O!nnn(iiL)O!O!O!iLLUOp", &PyList_Type, &keys, &pos, &end, &want, &lay.shift,
                          &lay.pos_bits, &lay.pos_mask, &PyList_Type, &jsons, &PyList_Type, &bins, &PyList_Type,
                          &read_marks, &rule, &now_s, &max_age, &pre_suffix, &should_stop, &stopped))
        return NULL;
    Py_ssize_t chunks = PyList_GET_SIZE(jsons);
    if (end > PyList_GET_SIZE(keys) || PyList_GET_SIZE(bins) != chunks ||
        (rule == RULE_RELATIME && PyList_GET_SIZE(read_marks) != chunks) || pos < 0) {
        PyErr_SetString(PyExc_ValueError, "select_step: the keys, bins and marks do not match");
        return NULL;
    }
    Columns store;
    if (check_jsons(jsons) < 0 || columns_open(&store, bins, -1, jsons) < 0)
        return NULL;
    PyObject *marks = PyBytes_FromStringAndSize(NULL, end > pos ? end - pos : 0);
    PyObject *todo = PyDict_New();
    /* The positions to read, a list per chunk (made at its first), then the dict of them. */
    PyObject **unread = PyMem_Calloc((size_t)chunks + 1, sizeof(PyObject *));
    if (!marks || !todo || !unread)
        goto fail;
    char *mark = PyBytes_AS_STRING(marks);
    Py_ssize_t passed = 0, reading = 0;
    for (Py_ssize_t i = pos; i < end && reading < want; i++) {
        long long second;
        Py_ssize_t chunk, at;
        if (split_key(PyList_GET_ITEM(keys, i), &lay, chunks, &second, &chunk, &at) < 0)
            goto fail;
        PyObject *entry = PyList_GET_ITEM(jsons, chunk);
        PyObject *names = PyTuple_GET_ITEM(entry, 1);
        if (at >= PyList_GET_SIZE(names)) {
            PyErr_SetString(PyExc_ValueError, "a key beyond its chunk");
            goto fail;
        }
        char m = MARK_READ;
        if (is_pre_json(PyList_GET_ITEM(names, at), pre_suffix)) {
            m = MARK_PRE;
        } else if (rule == RULE_ALL_SAVED) {
            m = MARK_SAVED;
        } else if (rule == RULE_RELATIME) {
            PyObject *flags = PyList_GET_ITEM(read_marks, chunk);
            if (!PyBytes_Check(flags) || at >= PyBytes_GET_SIZE(flags)) {
                PyErr_SetString(PyExc_ValueError, "a read mark is missing");
                goto fail;
            }
            if (!PyBytes_AS_STRING(flags)[at] || now_s - second >= max_age)
                m = MARK_SAVED;
        }
        if (m == MARK_READ) {
            if (column(&store, chunk)[at] == BIN_UNREAD) {
                if (!stopped && should_stop != Py_None) {
                    PyObject *answer = PyObject_CallNoArgs(should_stop);
                    if (!answer)
                        goto fail;
                    stopped = PyObject_IsTrue(answer);
                    Py_DECREF(answer);
                    if (stopped < 0)
                        goto fail;
                }
                if (stopped)
                    break;
                if (!unread[chunk] && !(unread[chunk] = PyList_New(0)))
                    goto fail;
                PyObject *at_obj = PyLong_FromSsize_t(at);
                int failed = !at_obj || PyList_Append(unread[chunk], at_obj) < 0;
                Py_XDECREF(at_obj);
                if (failed)
                    goto fail;
            }
            reading++;
        }
        mark[passed++] = m;
    }
    for (Py_ssize_t chunk = 0; chunk < chunks; chunk++) {
        if (!unread[chunk])
            continue;
        PyObject *chunk_key = PyLong_FromSsize_t(chunk);
        int failed = !chunk_key || PyDict_SetItem(todo, chunk_key, unread[chunk]) < 0;
        Py_XDECREF(chunk_key);
        if (failed)
            goto fail;
    }
    columns_close(&store);
    for (Py_ssize_t chunk = 0; chunk < chunks; chunk++)
        Py_XDECREF(unread[chunk]);
    PyMem_Free(unread);
    if (_PyBytes_Resize(&marks, passed) < 0) {
        Py_DECREF(todo);
        return NULL;
    }
    return Py_BuildValue("(NNN)", marks, todo, PyBool_FromLong(stopped));
fail:
    columns_close(&store);
    if (unread) {
        for (Py_ssize_t chunk = 0; chunk < chunks; chunk++)
            Py_XDECREF(unread[chunk]);
        PyMem_Free(unread);
    }
    Py_XDECREF(marks);
    Py_XDECREF(todo);
    return NULL;
}

/* account(keys, start, marks, layout, jsons, bins, other_bytes, counted, target, delete, unparsed,
 *         others) -> (consumed, counted, reached, skipped_pre, saved)
 *
 * CANN's loop over a step (AgingCacheFileByAccessTime) whose groups are all read: for keys[start:]
 * with their select_step `marks`, MARK_PRE and MARK_SAVED are counted, a BIN_UNPARSED group goes
 * to `unparsed` (never deleted, never counted), every other group to `delete` (and a BIN_OTHER one
 * to `others` too, its bytes from `other_bytes` by its key's low bits; a plain one's are the walk's
 * json size plus its binary's), its bytes added to `counted`; the loop ends after the group that
 * brings `counted` to `target` or more (`reached`). `consumed`: the keys gone through. */
static PyObject *account(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *keys, *marks, *jsons, *bins, *other_bytes, *delete, *unparsed, *others;
    Py_ssize_t start;
    Layout lay;
    long long counted, target;
    if (!PyArg_ParseTuple(args, "O!nO!(iiL)O!O!O!LLO!O!O!", &PyList_Type, &keys, &start, &PyBytes_Type, &marks,
                          &lay.shift, &lay.pos_bits, &lay.pos_mask, &PyList_Type, &jsons, &PyList_Type, &bins,
                          &PyDict_Type, &other_bytes, &counted, &target, &PyList_Type, &delete, &PyList_Type,
                          &unparsed, &PyList_Type, &others))
        return NULL;
    Py_ssize_t count = PyBytes_GET_SIZE(marks), chunks = PyList_GET_SIZE(jsons), consumed = 0;
    if (start < 0 || start + count > PyList_GET_SIZE(keys) || PyList_GET_SIZE(bins) != chunks) {
        PyErr_SetString(PyExc_ValueError, "account: the keys, marks and bins do not match");
        return NULL;
    }
    const char *mark = PyBytes_AS_STRING(marks);
    long long pre = 0, saved = 0;
    int reached = 0, failed = 1;
    Columns store, sizes;
    if (check_jsons(jsons) < 0 || columns_open(&store, bins, -1, jsons) < 0)
        return NULL;
    if (columns_open(&sizes, jsons, 3, jsons) < 0) {
        columns_close(&store);
        return NULL;
    }
    for (; consumed < count && !reached; consumed++) {
        if (mark[consumed] == MARK_PRE) {
            pre++;
            continue;
        }
        if (mark[consumed] == MARK_SAVED) {
            saved++;
            continue;
        }
        PyObject *key_obj = PyList_GET_ITEM(keys, start + consumed);
        long long second;
        Py_ssize_t chunk, at;
        if (split_key(key_obj, &lay, chunks, &second, &chunk, &at) < 0)
            goto done;
        if (at * 8 >= store.views[chunk].len) {
            PyErr_SetString(PyExc_ValueError, "a key beyond its chunk");
            goto done;
        }
        long long bin = column(&store, chunk)[at], bytes;
        if (bin == BIN_UNPARSED) {
            if (PyList_Append(unparsed, key_obj) < 0)
                goto done;
            continue;
        }
        if (bin >= 0) {
            bytes = column(&sizes, chunk)[at] + bin;
        } else if (bin == BIN_OTHER) {
            PyObject *slot = PyLong_FromLongLong(PyLong_AsLongLong(key_obj) & ((1LL << lay.shift) - 1));
            PyObject *value = slot ? PyDict_GetItemWithError(other_bytes, slot) : NULL;
            Py_XDECREF(slot);
            if (!value) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_KeyError, "an other group without its bytes");
                goto done;
            }
            bytes = PyLong_AsLongLong(value);
            if ((bytes == -1 && PyErr_Occurred()) || PyList_Append(others, key_obj) < 0)
                goto done;
        } else {
            break; /* not read (asked to stop): the step ends here */
        }
        if (PyList_Append(delete, key_obj) < 0)
            goto done;
        counted += bytes;
        reached = counted >= target;
    }
    failed = 0;
done:
    columns_close(&store);
    columns_close(&sizes);
    if (failed)
        return NULL;
    return Py_BuildValue("(nLNLL)", consumed, counted, PyBool_FromLong(reached), pre, saved);
}

/* ---- name_mask ----------------------------------------------------------------------------- */

/* name_mask(names, shortest, suffixes, suffix_longer_than) -> bytes
 *
 * A byte per name of `names`: 1 when it is longer than `shortest` characters and does not (when
 * longer than `suffix_longer_than`) end with one of `suffixes` (a tuple of str), as
 * scanner.is_candidate decides with the rule's numbers and suffixes it passes. Lengths are in
 * code points, as Python's len(). */
static PyObject *name_mask(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *names, *suffixes;
    Py_ssize_t shortest, suffix_longer_than;
    if (!PyArg_ParseTuple(args, "O!nO!n", &PyList_Type, &names, &shortest, &PyTuple_Type, &suffixes,
                          &suffix_longer_than))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(names);
    PyObject *out = PyBytes_FromStringAndSize(NULL, count);
    if (!out)
        return NULL;
    char *mask = PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PyList_GET_ITEM(names, i);
        if (!PyUnicode_Check(name)) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_TypeError, "names must be str");
            return NULL;
        }
        Py_ssize_t len = PyUnicode_GET_LENGTH(name);
        int keep = len > shortest;
        for (Py_ssize_t k = 0; keep && len > suffix_longer_than && k < PyTuple_GET_SIZE(suffixes); k++) {
            Py_ssize_t ends = PyUnicode_Tailmatch(name, PyTuple_GET_ITEM(suffixes, k), 0, PY_SSIZE_T_MAX, 1);
            if (ends < 0) {
                Py_DECREF(out);
                return NULL;
            }
            keep = !ends;
        }
        mask[i] = (char)keep;
    }
    return out;
}

/* ---- order_keys ---------------------------------------------------------------------------- */

typedef struct {
    long long second;
    unsigned long long low; /* chunk << pos_bits | position */
} OrderKey;

static int compare_keys(const void *a, const void *b) {
    const OrderKey *x = a, *y = b;
    if (x->second != y->second)
        return x->second < y->second ? -1 : 1;
    return x->low < y->low ? -1 : x->low > y->low;
}

/* order_keys(chunks, pos_bits, chunk_bits) -> (keys, ties) | None
 *
 * The sort keys scanner.SocUsage.ordered_candidates makes, sorted: for chunk c of `chunks`
 * (each (access times: a buffer of C doubles, mask: bytes or None)) and each position p whose
 * mask byte is not 0 (every position without a mask), the key
 * int(atime) * 2**(pos_bits + chunk_bits) + c * 2**pos_bits + p (int() as Python's, towards
 * zero). `ties` has a byte per neighbouring pair of the sorted keys: 1 when they share a second.
 * None when a key would not fit in 63 bits (then Python makes them). */
static PyObject *order_keys(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *chunks;
    int pos_bits, chunk_bits;
    if (!PyArg_ParseTuple(args, "O!ii", &PyList_Type, &chunks, &pos_bits, &chunk_bits))
        return NULL;
    int shift = pos_bits + chunk_bits;
    if (pos_bits < 0 || chunk_bits < 0 || shift > 40)
        Py_RETURN_NONE;
    long long limit = 1LL << (62 - shift); /* |second| below it: the key fits */
    Py_ssize_t chunk_count = PyList_GET_SIZE(chunks);
    size_t total = 0, filled = 0;
    OrderKey *keys = NULL;
    PyObject *result = NULL;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            keys = PyMem_Malloc((total ? total : 1) * sizeof(OrderKey));
            if (!keys)
                return PyErr_NoMemory();
        }
        for (Py_ssize_t c = 0; c < chunk_count; c++) {
            PyObject *chunk = PyList_GET_ITEM(chunks, c);
            if (!PyTuple_Check(chunk) || PyTuple_GET_SIZE(chunk) != 2) {
                PyErr_SetString(PyExc_TypeError, "a chunk is (access times, mask or None)");
                goto done;
            }
            Py_buffer times, mask;
            if (PyObject_GetBuffer(PyTuple_GET_ITEM(chunk, 0), &times, PyBUF_SIMPLE) < 0)
                goto done;
            PyObject *mask_obj = PyTuple_GET_ITEM(chunk, 1);
            int has_mask = mask_obj != Py_None;
            if (has_mask && PyObject_GetBuffer(mask_obj, &mask, PyBUF_SIMPLE) < 0) {
                PyBuffer_Release(&times);
                goto done;
            }
            Py_ssize_t count = times.len / (Py_ssize_t)sizeof(double);
            const double *atimes = times.buf;
            const char *wanted = has_mask ? mask.buf : NULL;
            int bad = has_mask && mask.len != count;
            for (Py_ssize_t p = 0; p < count && !bad; p++) {
                if (wanted && !wanted[p])
                    continue;
                if (pass == 0) {
                    total++;
                    continue;
                }
                double a = atimes[p];
                if (!(a > -(double)limit && a < (double)limit)) {
                    bad = 2;
                    break;
                }
                keys[filled].second = (long long)a;
                keys[filled].low = ((unsigned long long)c << pos_bits) | (unsigned long long)p;
                filled++;
            }
            PyBuffer_Release(&times);
            if (has_mask)
                PyBuffer_Release(&mask);
            if (bad == 1) {
                PyErr_SetString(PyExc_ValueError, "a mask has one byte per access time");
                goto done;
            }
            if (bad == 2 || (unsigned long long)c >= (1ULL << chunk_bits) || count > (1LL << pos_bits)) {
                result = Py_None;
                Py_INCREF(result);
                goto done;
            }
        }
    }
    qsort(keys, filled, sizeof(OrderKey), compare_keys);
    PyObject *list = PyList_New((Py_ssize_t)filled);
    PyObject *ties = PyBytes_FromStringAndSize(NULL, filled ? (Py_ssize_t)filled - 1 : 0);
    if (!list || !ties) {
        Py_XDECREF(list);
        Py_XDECREF(ties);
        goto done;
    }
    char *tie = PyBytes_AS_STRING(ties);
    for (size_t i = 0; i < filled; i++) {
        PyObject *key = PyLong_FromLongLong(keys[i].second * (1LL << shift) + (long long)keys[i].low);
        if (!key) {
            Py_DECREF(list);
            Py_DECREF(ties);
            goto done;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, key);
        if (i + 1 < filled)
            tie[i] = keys[i].second == keys[i + 1].second;
    }
    result = Py_BuildValue("(NN)", list, ties);
done:
    PyMem_Free(keys);
    return result;
}

static PyMethodDef methods[] = {
    {"plain_chunk", plain_chunk, METH_VARARGS, "lstat a chunk of names; aggregates when all are plain files"},
    {"select_step", select_step, METH_VARARGS, "the next step of a prediction: a mark per key, the reads"},
    {"read_groups", read_groups, METH_VARARGS, "read a step's kernel jsons into the store, in threads"},
    {"account", account, METH_VARARGS, "CANN's loop over a read step: what it deletes and counts"},
    {"helper_cpu_seconds", helper_cpu_seconds, METH_NOARGS, "CPU seconds of read_groups' helper threads"},
    {"order_keys", order_keys, METH_VARARGS, "the candidates' sort keys, sorted"},
    {"name_mask", name_mask, METH_VARARGS, "a byte per name: long enough and not ending with a suffix"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
