// The C++ program of the probe tests: a method, an overload, `this`.
// Each probed call prints what its event must record, after EXPECT.
#include <cstdio>
namespace ns {
struct Cls {
	int base;
	__attribute__((noinline)) int method(int x);
	__attribute__((noinline)) int over(int x);
	__attribute__((noinline)) int over(long l, int y);
};
int Cls::method(int x)
{
	std::printf("EXPECT ns__Cls__method: x=%d base=%d\n", x, base);
	return base + x;
}
int Cls::over(int x) { std::printf("%d\n", x); return x; }
int Cls::over(long l, int y)
{
	std::printf("EXPECT _ZN2ns3Cls4overEli: y=%d base=%d\n", y, base);
	return (int)l + y;
}
}
int main() { ns::Cls c{5}; return c.method(3) + c.over(1) + c.over(2, 4) != 15; }
