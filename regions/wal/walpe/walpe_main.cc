// Standalone walpe executable; the main binary runs the same thing as
// `wirebench walpe`.
#include "regions/wal/walpe/walpe.h"

int main(int argc, char** argv) { return wirebench::RunWalpe(argc, argv); }
