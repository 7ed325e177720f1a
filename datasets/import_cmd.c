/* `tephra import alibaba|itp ...`: turn a real trace into a scenario. */
#include "datasets.h"

int tph_cmd_import(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return 2;
}
