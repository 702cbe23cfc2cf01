import { useState } from 'react';

export default function PostStatusUpdate() {
  const [text, setText] = useState('');
  const [feed, setFeed] = useState([]);
  const [error, setError] = useState('');

  const post = async () => {
    setError('');
    try {
      const response = await fetch('/api/statuses', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const status = await response.json();
      setFeed((current) => [status, ...current]);
      setText('');
    } catch (err) {
      setError('Failed to post update');
    }
  };

  return (
    <div>
      <textarea
        placeholder="What's on your mind?"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      <button onClick={post}>Post</button>
      {error && <p>{error}</p>}
      <div>
        {feed.map((status) => (
          <article key={status.id} data-testid={`status-${status.id}`}>{status.text}</article>
        ))}
      </div>
    </div>
  );
}
