#ifndef LINKROUTER_CQRENCODE_SHIM_H
#define LINKROUTER_CQRENCODE_SHIM_H
/* libqrencode (Debian's libqrencode4) is loaded with dlopen when linkctl first
   shows a QR code (a device login's page, for a phone): no other command maps
   it. So no header of its is needed to build: the one type and two calls,
   as qrencode.h (4.x) fixes them. */

/* QRcode (qrencode.h): width × width modules, each a byte whose bit 0 is "dark". */
typedef struct lr_qrcode {
    int version;
    int width;
    unsigned char *data;
} lr_qrcode;

/* QRcode *QRcode_encodeString(const char *string, int version, QRecLevel level, QRencodeMode hint, int casesensitive);
   QR_ECLEVEL_M = 1, QR_MODE_8 = 2. */
static inline lr_qrcode *lr_qrcode_encode(void *fn, const char *text) {
    return ((lr_qrcode * (*)(const char *, int, int, int, int)) fn)(text, 0, 1, 2, 1);
}

/* void QRcode_free(QRcode *qrcode); */
static inline void lr_qrcode_free(void *fn, lr_qrcode *code) { ((void (*)(lr_qrcode *))fn)(code); }
#endif
