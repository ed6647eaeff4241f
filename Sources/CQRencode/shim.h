/* libqrencode, for the phone page's address as a QR code in the terminal.

   Opened when a code is first drawn (dlopen), not linked: only `run --source phone` draws one. */
#include <qrencode.h>
#include "../CLinux/opened_library.h"

/* The library file name opened (scripts/build-deb.sh adds its package to Depends). */
#define M3D_LIBQRENCODE "libqrencode.so.4"

#define M3D_QRENCODE_FUNCTIONS(F) F(QRcode_encodeString) F(QRcode_free)

M3D_OPENED_LIBRARY(qrencode, M3D_QRENCODE_FUNCTIONS, M3D_LIBQRENCODE)
