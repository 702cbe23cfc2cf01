import { useEffect, useState } from 'react';

export default function DeleteComment() {
  const [comments, setComments] = useState([]);
  const [message, setMessage] = useState('');

  useEffect(() => {
    fetch('/api/posts/7/comments')
      .then((response) => {
        if (!response.ok) throw new Error('load failed');
        return response.json();
      })
      .then(setComments)
      .catch(() => setMessage('Failed to load comments'));
  }, []);

  const handleDelete = async (id) => {
    try {
      const response = await fetch(`/api/comments/${id}`, { method: 'DELETE' });
      if (!response.ok) throw new Error('delete failed');
      setComments((current) => current.filter((comment) => comment.id !== id));
      setMessage('Comment deleted');
    } catch (error) {
      setMessage('Failed to delete comment');
    }
  };

  return (
    <div>
      <ul>
        {comments.map((comment) => (
          <li key={comment.id}>
            <span>{comment.text}</span>
            <button data-testid={`delete-comment-${comment.id}`} onClick={() => handleDelete(comment.id)}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      {message && <p>{message}</p>}
    </div>
  );
}
