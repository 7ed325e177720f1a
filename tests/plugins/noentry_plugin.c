/* A shared object without the tephra entry symbol: loading it must fail cleanly. */
int not_a_plugin(void);

int not_a_plugin(void)
{
	return 42;
}
