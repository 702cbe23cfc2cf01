import { useEffect, useState } from 'react';

export default function LoadRecentPosts() {
  const [posts, setPosts] = useState([]);
  const [error, setError] = useState('');

  useEffect(() => {
    const load = async () => {
      try {
        const response = await fetch('/api/posts/recent');
        if (!response.ok) {
          throw new Error(`HTTP ${response.status}`);
        }
        setPosts(await response.json());
      } catch (err) {
        setError('Could not load posts');
      }
    };
    load();
  }, []);

  return (
    <section>
      <h2>Recent posts</h2>
      {error && <p className="error">{error}</p>}
      <ul>
        {posts.map((post) => (
          <li key={post.id} data-testid="post-item">{post.title}</li>
        ))}
      </ul>
    </section>
  );
}
