/* The `tephra` command line: run, check, gen. */
#include "tephra/version.h"
#include <stdio.h>

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("tephra %s\n", tph_version_string());
	return 0;
}
