import { useState } from 'react';

const CATEGORIES = ['technology', 'travel', 'food'];

export default function CategoryFilter() {
  const [category, setCategory] = useState('');
  const [posts, setPosts] = useState([]);
  const [error, setError] = useState('');

  const handleChange = async (event) => {
    const value = event.target.value;
    setCategory(value);
    setError('');
    if (!value) {
      setPosts([]);
      return;
    }
    try {
      const response = await fetch(`/api/posts?category=${encodeURIComponent(value)}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setPosts(await response.json());
    } catch (err) {
      setPosts([]);
      setError('Failed to load posts');
    }
  };

  return (
    <div>
      <label htmlFor="category">Category</label>
      <select id="category" data-testid="category-select" value={category} onChange={handleChange}>
        <option value="">All categories</option>
        {CATEGORIES.map((name) => (
          <option key={name} value={name}>{name}</option>
        ))}
      </select>
      {error && <p>{error}</p>}
      <ul>
        {posts.map((post) => (
          <li key={post.id}>{post.title}</li>
        ))}
      </ul>
    </div>
  );
}
