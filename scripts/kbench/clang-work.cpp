// A translation unit of ordinary C++: the standard library's containers,
// algorithms and streams, instantiated a few times over.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

template <typename K, typename V>
static std::vector<std::pair<K, V>> sorted(const std::unordered_map<K, V> &m)
{
	std::vector<std::pair<K, V>> v(m.begin(), m.end());
	std::sort(v.begin(), v.end());
	return v;
}

int main(int argc, char **argv)
{
	std::unordered_map<std::string, int> words;
	std::map<int, std::vector<std::string>> by_len;
	std::regex re("[a-z]+");
	for (int i = 1; i < argc; i++) {
		std::string s(argv[i]);
		for (auto it = std::sregex_iterator(s.begin(), s.end(), re);
		     it != std::sregex_iterator(); ++it)
			words[it->str()]++;
	}
	for (auto &[w, n] : sorted(words))
		by_len[w.size()].push_back(w + ":" + std::to_string(n));
	std::ostringstream out;
	for (auto &[l, ws] : by_len)
		out << l << " " << ws.size() << "\n";
	auto p = std::make_shared<std::string>(out.str());
	std::cout << *p;
	return 0;
}
