// SPDX-License-Identifier: GPL-2.0
/*
 * The workload of trace-oneliners.sh: it waits for a byte on standard
 * input, so that the tracers watch its pid before it does anything,
 * then reads /dev/zero in known sizes, opens each file named on its
 * command line and forks children that exit at once.
 */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

static const size_t sizes[] = { 1, 3, 3, 100, 1000, 1000, 4096, 5000, 8192 };

int main(int argc, char **argv)
{
	static char buf[8192];
	char c;
	size_t i;
	int fd;

	if (read(STDIN_FILENO, &c, 1) != 1)
		return 1;
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (read(fd, buf, sizes[i]) != (ssize_t)sizes[i])
			return 1;
	close(fd);
	/* A file that does not exist is opened (and traced) all the same. */
	for (i = 1; i < (size_t)argc; i++) {
		fd = open(argv[i], O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < 3; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid)
			_exit(0);
		if (waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	return 0;
}
